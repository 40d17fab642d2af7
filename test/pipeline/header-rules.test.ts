// Which inbound headers reach an upstream is decided by rule (gateway/pipeline/mutate.ts): identity
// and routing headers a client could smuggle never arrive, in any spelling; hop-by-hop headers and
// Expect: 100-continue are handled, not turned into a 502. Sent over real sockets.
import { connect } from 'node:net';
import fc from 'fast-check';
import t from 'tap';
import { forwardableRequestHeader } from '../../gateway/pipeline/mutate.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { listen, rawRequest } from '../helpers/http.js';
import { accessToken, createClient } from '../helpers/oauth.js';

let tg: TestGateway;
let publicPort: number;
let token: string;
let clientId: string;

t.before(async () => {
  tg = await startTestGateway(t);
  ({ publicPort } = await listen(tg));
  const client = await createClient(tg, ['sales', 'sales_refund'], { account_id: 'acct-1' });
  clientId = client.client_id;
  token = await accessToken(tg, client);
});

const lastReceived = () => tg.upstreams.public.received.at(-1)!;

t.test('underscore spellings of identity headers never reach the upstream', async (t) => {
  const response = await rawRequest(publicPort, 'GET', '/v1/sales', {
    Authorization: `Bearer ${token}`,
    x_gateway_client_id: 'spoofed',
    x_gateway_account_id: 'acct-spoofed',
    x_gateway_scopes: 'financial',
    X_Gateway_Permissions: 'initiate_payment',
    x_request_id: 'spoofed',
    x_forwarded_for: '203.0.113.9',
    'x-custom_header': 'dropped too',
    'X-Custom-Header': 'kept',
  });
  t.equal(response.status, 200, response.body);
  const headers = lastReceived().headers;
  t.same(
    Object.keys(headers).filter((name) => name.includes('_')),
    [],
    'no header spelled with an underscore arrives',
  );
  t.equal(headers['x-gateway-client-id'], clientId);
  t.equal(headers['x-gateway-scopes'], 'sales sales_refund');
  t.equal(headers['x-gateway-account-id'], 'acct-1');
  t.equal(headers['x-custom-header'], 'kept');
});

t.test('method and URL override headers do not reach the upstream of an authorized request', async (t) => {
  const overrides = {
    'X-HTTP-Method-Override': 'POST',
    'X-HTTP-Method': 'POST',
    'X-Method-Override': 'POST',
    'X-Original-URL': '/v1/sales/7/refund',
    'X-Rewrite-URL': '/v1/sales/7/refund',
    'X-Original-Method': 'POST',
    'X-Override-URL': '/v1/sales/7/refund',
    'X-Forwarded-Path': '/v1/sales/7/refund',
    'X-Forwarded-Prefix': '/admin',
  };
  const response = await rawRequest(publicPort, 'GET', '/v1/sales/7', { Authorization: `Bearer ${token}`, ...overrides });
  t.equal(response.status, 200, response.body);
  const received = lastReceived();
  t.equal(received.method, 'GET');
  t.equal(received.url, '/v1/sales/7');
  for (const name of Object.keys(overrides)) t.equal(received.headers[name.toLowerCase()], undefined, `${name} is not forwarded`);
});

t.test("client-chosen address and host headers are replaced by the gateway's own view", async (t) => {
  const claims = {
    'X-Real-IP': '203.0.113.9',
    'True-Client-IP': '203.0.113.9',
    'X-Client-IP': '203.0.113.9',
    'CF-Connecting-IP': '203.0.113.9',
    'X-Cluster-Client-IP': '203.0.113.9',
    Forwarded: 'for=203.0.113.9;host=evil.example;proto=https',
    'X-Forwarded-For': '203.0.113.9',
    'X-Forwarded-Host': 'evil.example',
    'X-Forwarded-Proto': 'https',
    'X-Forwarded-Port': '443',
    'X-Host': 'evil.example',
  };
  const response = await rawRequest(publicPort, 'GET', '/v1/sales', { Authorization: `Bearer ${token}`, ...claims });
  t.equal(response.status, 200, response.body);
  const headers = lastReceived().headers;
  for (const name of ['x-real-ip', 'true-client-ip', 'x-client-ip', 'cf-connecting-ip', 'x-cluster-client-ip', 'forwarded', 'x-forwarded-port', 'x-host']) {
    t.equal(headers[name], undefined, `${name} is not forwarded`);
  }
  t.equal(headers['x-forwarded-for'], '127.0.0.1', 'the socket peer, as the gateway saw it');
  t.equal(headers['x-forwarded-host'], '127.0.0.1', 'the Host the client asked the gateway for');
  t.equal(headers['x-forwarded-proto'], 'http', 'the protocol of the connection to the gateway');
});

// The rule itself, over generated names: every spelling in a forbidden family is dropped, and names
// outside them pass. Case does not matter to Node (it lower-cases names), so names are lower-case.
const token_ = fc.stringMatching(/^[a-z0-9]{1,8}$/);
const forbidden = fc.oneof(
  token_.map((rest) => `x-gateway-${rest}`),
  token_.map((rest) => `x-forwarded-${rest}`),
  fc.tuple(fc.constantFrom('x-original-', 'x-rewrite-', 'x-override-'), token_).map(([prefix, rest]) => prefix + rest),
  token_.map((rest) => `${rest}-ip`),
  fc.constantFrom(
    'x-http-method',
    'x-http-method-override',
    'x-method-override',
    'forwarded',
    'x-host',
    'x-request-id',
    'authorization',
    'signature',
    'signature-input',
    'x-access-id',
    'expect',
    'connection',
    'keep-alive',
    'upgrade',
    'te',
    'trailer',
    'transfer-encoding',
    'proxy-connection',
  ),
  token_.map((rest) => `${rest}-method-override`),
);
const withUnderscore = fc.tuple(token_, token_).map(([a, b]) => `${a}_${b}`);

t.test('property: every name of a forbidden family, and every underscore spelling, is dropped', async (t) => {
  fc.assert(
    fc.property(fc.oneof(forbidden, withUnderscore), (name) => !forwardableRequestHeader(name)),
    { numRuns: 2000 },
  );
  t.pass('no generated forbidden name was forwardable');
});

t.test('property: ordinary application headers pass', async (t) => {
  const ordinary = fc
    .tuple(fc.constantFrom('x-', 'idempotency-', 'accept-', 'x-app-', ''), fc.stringMatching(/^[a-hj-z][a-z0-9]{0,10}$/))
    .map(([prefix, rest]) => prefix + rest);
  const isForbidden = (name: string) =>
    /^x-(gateway|forwarded|original|rewrite|override)-|-ip$|method|^(x-host|forwarded|te|trailer|upgrade|expect|connection|keep-alive|authorization|signature)$/.test(
      name,
    );
  fc.assert(
    fc.property(ordinary, (name) => isForbidden(name) || forwardableRequestHeader(name)),
    { numRuns: 2000 },
  );
  for (const name of ['content-type', 'accept', 'user-agent', 'idempotency-key', 'x-correlation-id', 'x-payment-method', 'traceparent', 'cookie']) {
    t.ok(forwardableRequestHeader(name), `${name} passes`);
  }
});

t.test('generated smuggling headers sent over a socket never arrive', async (t) => {
  const names = fc
    .sample(fc.oneof(forbidden, withUnderscore), { numRuns: 60, seed: 42 })
    .filter(
      (name) => !['connection', 'transfer-encoding', 'expect', 'authorization', 'upgrade', 'te', 'trailer', 'keep-alive', 'proxy-connection'].includes(name),
    );
  const headers = Object.fromEntries(names.map((name) => [name, 'smuggled']));
  const response = await rawRequest(publicPort, 'GET', '/v1/sales', { Authorization: `Bearer ${token}`, ...headers });
  t.equal(response.status, 200, response.body);
  const received = lastReceived().headers;
  const arrived = Object.entries(received).filter(([, value]) => value === 'smuggled' || (Array.isArray(value) && value.includes('smuggled')));
  t.same(arrived, [], 'none of the generated headers reached the upstream');
});

/** Sends a request head, waits for an interim 100 Continue if asked, then the body; returns the whole response text. */
function exchange(head: string, body: string, waitForContinue: boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(publicPort, '127.0.0.1');
    let text = '';
    let sentBody = !waitForContinue;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete response: ${JSON.stringify(text)}`));
    }, 5000);
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (!sentBody && text.startsWith('HTTP/1.1 100')) {
        sentBody = true;
        socket.write(body);
      }
    });
    socket.on('end', () => {
      clearTimeout(timer);
      resolve(text);
    });
    socket.on('error', reject);
    socket.write(head + (waitForContinue ? '' : body));
  });
}

t.test('Expect: 100-continue, a bare Keep-Alive and Upgrade are valid requests, not 502s', async (t) => {
  const body = JSON.stringify({ reason: 'duplicate' });
  const head = (extra: string) =>
    `POST /v1/sales/7/refund HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n${extra}Connection: close\r\n\r\n`;

  const before = tg.upstreams.public.received.length;
  const continued = await exchange(head('Expect: 100-continue\r\n'), body, true);
  t.match(continued, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /, 'the client is told to continue, then answered 200');
  t.equal(lastReceived().body, body, 'the body arrives');
  t.equal(lastReceived().headers.expect, undefined, 'Expect is not forwarded: the gateway answered it');

  for (const extra of [
    'Keep-Alive: timeout=5, max=100\r\n',
    'Upgrade: websocket\r\n',
    'Keep-Alive: 300\r\nProxy-Connection: keep-alive\r\n',
    'TE: trailers, deflate\r\nTrailer: x-checksum\r\n',
  ]) {
    const reply = await exchange(head(extra), body, false);
    t.match(reply, /^HTTP\/1\.1 200 /, `${JSON.stringify(extra)}: ${reply.split('\r\n', 1)[0]}`);
    const headers = lastReceived().headers;
    for (const name of ['keep-alive', 'upgrade', 'proxy-connection', 'te', 'trailer']) t.equal(headers[name], undefined, `${name} is not forwarded`);
  }
  t.equal(tg.upstreams.public.received.length, before + 5, 'each request reached the upstream once');
});
