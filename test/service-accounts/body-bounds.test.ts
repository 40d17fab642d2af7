// What a client can make the gateway hold on a signed route before it has proven who it is:
// nothing. Everything the headers decide is refused before the body is read, and the connection is
// closed; an authenticated body counts against the per-request limit and the gateway-wide budget.
// Real sockets against a listening gateway, so that "before the body" means what it says.
import { randomBytes, randomUUID } from 'node:crypto';
import t from 'tap';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { listen, partialRequest, requestHead } from '../helpers/http.js';
import { TEST_REDIS_URL } from '../helpers/redis.js';
import { createServiceAccount, signedHeaders, type TestServiceAccount } from '../helpers/signing.js';

const MAX_BODY = 65_536;
const BUDGET = 100_000;

let tg: TestGateway;
let port: number;
let sa: TestServiceAccount;

t.before(async () => {
  tg = await startTestGateway(t, {
    config: { max_body_bytes: MAX_BODY, body_buffer_budget_bytes: BUDGET, request_timeout_ms: 3000, headers_timeout_ms: 3000 },
  });
  ({ publicPort: port } = await listen(tg));
  sa = await createServiceAccount(tg, { permissions: ['initiate_payment', 'view_balance'] });
});

/** A signed POST /v1/transfers head for this body, with Content-Length; `after` tampers with headers. */
function transferHead(
  body: string,
  account: TestServiceAccount = sa,
  after: Record<string, string | undefined> = {},
  extra: Record<string, string> = {},
): string {
  const headers = signedHeaders(account, { method: 'POST', url: '/v1/transfers', body, headers: { 'content-type': 'application/json', ...extra }, after });
  // Keep-alive unless told otherwise: a refusal must close the connection by itself.
  return requestHead('POST', '/v1/transfers', {
    connection: 'keep-alive',
    ...headers,
    ...('transfer-encoding' in extra ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
  });
}

const bigBody = (size: number) => JSON.stringify({ amount: 1, memo: 'x'.repeat(size - 24) });

async function bodyBufferBytes(): Promise<number> {
  const metrics = await tg.gateway.adminApp.inject({ method: 'GET', url: '/metrics' });
  return Number(/^gateway_body_buffer_bytes (\d+)/m.exec(metrics.body)?.[1]);
}

t.test('refusals decided by the headers come before the body, and close the connection', async (t) => {
  const body = bigBody(60_000);
  const stranger = { ...sa, account: { ...sa.account, access_id: randomUUID() } };
  const cases = [
    { name: 'unknown Access ID', head: transferHead(body, stranger), code: 'unknown_access_id', status: 401 },
    {
      name: 'signature of random bytes',
      head: transferHead(body, sa, { signature: `sig1=:${randomBytes(64).toString('base64')}:` }),
      code: 'signature_invalid',
      status: 401,
    },
    {
      name: 'no signature at all',
      head: requestHead('POST', '/v1/transfers', { host: 'banking.test', 'x-access-id': sa.account.access_id, 'content-length': String(body.length) }),
      code: 'signature_missing',
      status: 401,
    },
    { name: 'digest header missing', head: transferHead(body, sa, { 'content-digest': undefined }), code: 'digest_mismatch', status: 401 },
    { name: 'declared body over the limit', head: transferHead(bigBody(MAX_BODY + 10)), code: 'body_too_large', status: 413 },
    {
      name: 'no route',
      head: requestHead('POST', '/v1/nowhere', { host: 'banking.test', 'content-length': String(body.length) }),
      code: 'route_not_found',
      status: 404,
    },
  ];
  for (const c of cases) {
    const before = tg.upstreams.banking.received.length;
    // Only the first kilobyte is sent: the answer must not wait for the rest.
    const exchange = partialRequest(port, c.head, body.slice(0, 1024), 2000);
    const response = await exchange.response;
    t.equal(response.status, c.status, `${c.name}: ${response.body}`);
    t.equal(JSON.parse(response.body).error, c.code, c.name);
    t.equal(response.headers.connection, 'close', `${c.name}: the connection is closed, the rest of the body is never read`);
    t.ok(response.closedAfterMs < 2000, `${c.name}: answered and closed in ${response.closedAfterMs} ms, without the body`);
    t.equal(tg.upstreams.banking.received.length, before, `${c.name}: the upstream was not contacted`);
  }
  t.equal(await bodyBufferBytes(), 0, 'no body bytes are held');
});

t.test('a signed request whose signature has not verified writes nothing to the store', async (t) => {
  const redis = new (await import('ioredis')).Redis(TEST_REDIS_URL, { lazyConnect: true });
  await redis.connect();
  t.teardown(() => redis.disconnect());
  const nonceKeys = async () => (await redis.keys(`${tg.redisPrefix}sa:{*}:nonce:*`)).length;
  const before = await nonceKeys();
  for (let i = 0; i < 50; i++) {
    const head = transferHead('{"amount":1}', sa, { signature: `sig1=:${randomBytes(64).toString('base64')}:`, connection: 'close' });
    const exchange = partialRequest(port, head, '{"amount":1}', 2000);
    t.equal((await exchange.response).status, 401);
  }
  t.equal(await nonceKeys(), before, '50 random signatures with a known Access ID created no nonce key');
});

t.test('an authenticated body counts against the budget; past it 503 with Retry-After, and the budget is given back', async (t) => {
  const body = bigBody(60_000);
  const before = tg.upstreams.banking.received.length;
  // The first upload holds 60,000 of the 100,000 budget bytes while it stalls half-way.
  const first = partialRequest(port, transferHead(body), body.slice(0, 30_000), 5000);
  for (let i = 0; i < 50 && (await bodyBufferBytes()) === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  t.equal(await bodyBufferBytes(), Buffer.byteLength(body), 'the declared length is held while the body arrives');

  const second = partialRequest(port, transferHead(body, sa, { connection: 'close' }), body, 2000);
  const refused = await second.response;
  t.equal(refused.status, 503, refused.body);
  t.equal(JSON.parse(refused.body).error, 'server_busy');
  t.equal(refused.headers['retry-after'], '1');
  t.equal(tg.upstreams.banking.received.length, before, 'the refused upload was not forwarded');

  first.write(body.slice(30_000));
  const completed = await Promise.race([first.response, new Promise<null>((resolve) => setTimeout(() => resolve(null), 1000))]);
  // Keep-alive: the first connection stays open after its 200; read it from the upstream instead.
  if (completed === null) first.destroy();
  for (let i = 0; i < 50 && tg.upstreams.banking.received.length === before; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  t.equal(tg.upstreams.banking.received.at(-1)?.body, body, 'the stalled upload, once complete, was forwarded whole');
  for (let i = 0; i < 50 && (await bodyBufferBytes()) !== 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  t.equal(await bodyBufferBytes(), 0, 'the budget is given back when the response is done');

  const third = partialRequest(port, transferHead(body, sa, { connection: 'close' }), body, 3000);
  t.equal((await third.response).status, 200, 'the next upload fits again');
});

t.test('an oversized chunked body gets 413 and the connection is closed, not left half-read', async (t) => {
  const before = tg.upstreams.banking.received.length;
  const claimed = bigBody(MAX_BODY * 2);
  const head = transferHead(claimed, sa, {}, { 'transfer-encoding': 'chunked' });
  const exchange = partialRequest(port, head, '', 5000);
  const chunk = 'x'.repeat(8192);
  for (let i = 0; i < 12; i++) exchange.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
  const response = await exchange.response;
  t.equal(response.status, 413, response.body);
  t.equal(JSON.parse(response.body).error, 'body_too_large');
  t.equal(response.headers.connection, 'close');
  t.equal(tg.upstreams.banking.received.length, before, 'nothing was forwarded');
  t.equal(await bodyBufferBytes(), 0, 'the bytes read before the refusal are given back');
});

t.test('a stalled authenticated upload is cut by the request timeout with a JSON 408', async (t) => {
  const body = bigBody(10_000);
  const exchange = partialRequest(port, transferHead(body), body.slice(0, body.length - 1), 8000);
  const response = await exchange.response;
  t.equal(response.status, 408, response.body);
  t.same(Object.keys(JSON.parse(response.body)).sort(), ['error', 'message', 'request_id']);
  t.equal(JSON.parse(response.body).error, 'request_timeout');
  t.ok(response.closedAfterMs >= 2500 && response.closedAfterMs < 6000, `closed after ${response.closedAfterMs} ms (timeout 3000 ms)`);
  for (let i = 0; i < 50 && (await bodyBufferBytes()) !== 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  t.equal(await bodyBufferBytes(), 0, 'the budget is given back');
});

t.test('a client that never finishes its headers is cut by the headers timeout', async (t) => {
  const exchange = partialRequest(port, 'POST /v1/transfers HTTP/1.1\r\nHost: banking.test\r\nX-Access-Id: ', '', 8000);
  const response = await exchange.response;
  t.equal(response.status, 408, response.body);
  t.equal(JSON.parse(response.body).error, 'request_timeout');
  t.ok(response.closedAfterMs < 6000, `closed after ${response.closedAfterMs} ms`);
});
