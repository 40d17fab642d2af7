// The client package's undici interceptor (clients/typescript/src/interceptor.ts): what it hands the
// next dispatch for each form of headers and body undici accepts (checked with the gateway's own
// verifier), how it reports what it cannot sign, and, with the repository's undici, requests a
// listening gateway accepts.
import { generateKeyPairSync } from 'node:crypto';
import { Readable } from 'node:stream';
import t from 'tap';
import { Agent, Client, request } from 'undici';
import type { Dispatcher as NodeBundledDispatcher } from 'undici-types';
import {
  contentDigest,
  headerFields,
  signingInterceptor,
  type DispatchHandler,
  type DispatchOptions,
  type SignedRequest,
} from '../../clients/typescript/src/index.js';
import { verifyRequestSignature } from '../../gateway/signing/index.js';
import { startTestGateway } from '../helpers/gateway.js';
import { listen } from '../helpers/http.js';
import { createServiceAccount } from '../helpers/signing.js';

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const ACCESS_ID = '3f2b9c1e-7a4d-4e8f-9b6a-2c1d0e5f4a3b';

/** Runs one dispatch through the interceptor into a recording dispatch; resolves with what reached it. */
function intercept(
  opts: DispatchOptions,
  handler: DispatchHandler = {},
  options: { origin?: string } = {},
): Promise<{ opts: DispatchOptions; signed: SignedRequest }> {
  return new Promise((resolve) => {
    let signed: SignedRequest | undefined;
    const dispatch = signingInterceptor({ accessId: ACCESS_ID, privateKey, ...options, onSigned: (s) => (signed = s) })((
      next: DispatchOptions,
      _handler: DispatchHandler,
    ) => {
      resolve({ opts: next, signed: signed! });
      return true;
    });
    dispatch(opts, handler);
  });
}

/** The gateway's verifier over the dispatch as undici would send it. */
function verifies(opts: DispatchOptions): string {
  const headers = opts.headers as Record<string, string | string[]>;
  const question = opts.path.indexOf('?');
  const request = {
    method: opts.method,
    // As the gateway reads Host: trimmed, lower case.
    authority: String(headers.host ?? new URL(opts.origin!).host)
      .trim()
      .toLowerCase(),
    path: question < 0 ? opts.path : opts.path.slice(0, question),
    query: question < 0 ? null : opts.path.slice(question + 1),
    headers: headerFields(Object.entries(headers)),
  };
  return verifyRequestSignature(request, { keyid: ACCESS_ID, publicKey }).base;
}

t.test('every header form undici accepts is kept, and signing headers already there are replaced', async (t) => {
  const forms: Array<[string, DispatchOptions['headers']]> = [
    ['an object', { 'Content-Type': 'application/json', 'X-Multi': ['a', 'b'], 'X-Access-Id': 'stale', skipped: undefined }],
    ['a flat array', ['Content-Type', 'application/json', 'X-Multi', 'a', 'x-multi', 'b', 'Signature', 'sig1=:AA==:']],
    [
      'pairs',
      new Map<string, string | string[]>([
        ['content-type', 'application/json'],
        ['x-multi', ['a', 'b']],
        ['signature-input', 'stale'],
      ]),
    ],
  ];
  for (const [name, headers] of forms) {
    const { opts, signed } = await intercept({ origin: 'http://bank.test:8080', path: '/v1/transfers?x=1', method: 'post', headers, body: '{"a":1}' });
    const sent = opts.headers as Record<string, string | string[]>;
    t.equal(opts.method, 'POST', `${name}: the method is sent as signed`);
    t.equal(sent['content-type'], 'application/json', `${name}: content-type kept`);
    t.same(sent['x-multi'], ['a', 'b'], `${name}: a repeated field keeps its values`);
    t.equal(sent['x-access-id'], ACCESS_ID, `${name}: x-access-id set once`);
    t.equal(sent['content-digest'], contentDigest('{"a":1}'), `${name}: the digest of the body`);
    t.equal(opts.body, '{"a":1}', `${name}: a string body is passed on as it is`);
    t.equal(verifies(opts), signed.base, `${name}: verifies, over the base onSigned reported`);
  }
  const none = await intercept({ origin: 'http://bank.test', path: '/v1/balance', method: 'GET', headers: null });
  t.notOk('content-digest' in (none.opts.headers as object), 'no body, no Content-Digest');
  t.equal(verifies(none.opts), none.signed.base);
});

t.test('the target is signed as sent: raw path and query, the Host header when set', async (t) => {
  const { opts, signed } = await intercept({
    origin: 'https://bank.test',
    path: '/v1/transactions/tx%2F1?q=a%20b&&',
    method: 'GET',
    headers: { host: 'Bank.Example:8443' },
  });
  t.match(signed.base, /^"@method": GET\n"@authority": bank\.example:8443\n"@path": \/v1\/transactions\/tx%2F1\n"@query": \?q=a%20b&&\n/);
  t.equal(verifies(opts), signed.base);
  const noQuery = await intercept({ origin: 'https://bank.test:443', path: '/v1/balance', method: 'GET' });
  t.match(
    noQuery.signed.base,
    /"@authority": bank\.test\n"@path": \/v1\/balance\n"@query": \?\n/,
    'the default port is not part of @authority; no query is "?"',
  );
});

t.test('a streamed body is read whole, signed, and sent as those bytes', async (t) => {
  const chunks = ['{"amount":', Buffer.from('"10.00"'), new Uint8Array([0x7d])];
  for (const [name, body] of [
    ['a Readable', Readable.from(chunks)],
    [
      'an async generator',
      (async function* () {
        yield* chunks;
      })(),
    ],
    ['a Blob', new Blob(['{"amount":"10.00"}'])],
  ] as const) {
    const { opts, signed } = await intercept({ origin: 'http://bank.test', path: '/v1/transfers', method: 'POST', body });
    t.equal(Buffer.from(opts.body as Uint8Array).toString(), '{"amount":"10.00"}', `${name}: the bytes are sent`);
    t.equal((opts.headers as Record<string, string>)['content-digest'], contentDigest('{"amount":"10.00"}'), `${name}: and digested`);
    t.equal(verifies(opts), signed.base);
  }
});

t.test('what cannot be signed is reported, and nothing is dispatched', async (t) => {
  let dispatched = 0;
  const dispatch = signingInterceptor({ accessId: ACCESS_ID, privateKey })((_opts: DispatchOptions, _handler: DispatchHandler) => {
    dispatched++;
    return true;
  });
  t.throws(
    () => dispatch({ path: '/v1/balance', method: 'GET' }, {}),
    /no origin .*pass `origin` to signingInterceptor/,
    'a Client dispatch without the origin option',
  );
  const form = new FormData();
  form.set('a', 'b');
  const modern = await new Promise<Error>((resolve) =>
    dispatch({ origin: 'http://bank.test', path: '/v1/transfers', method: 'POST', body: form }, { onResponseError: (_, error) => resolve(error) }),
  );
  t.match(modern.message, /cannot sign a request body that is \[object FormData\]/, 'undici 7 handlers: onResponseError');
  const legacy = await new Promise<Error>((resolve) =>
    dispatch({ origin: 'http://bank.test', path: '/v1/transfers', method: 'POST', body: Readable.from([{ not: 'bytes' }]) }, { onError: resolve }),
  );
  t.match(legacy.message, /must yield strings or bytes/, 'earlier handlers: onError');
  t.equal(dispatched, 0);
  t.throws(
    () => signingInterceptor({ accessId: ACCESS_ID, privateKey: 'not a key' }),
    { name: 'PrivateKeyError' },
    'a bad key fails when the interceptor is made',
  );
});

t.test('with undici against a listening gateway', async (t) => {
  const tg = await startTestGateway(t);
  const { publicUrl } = await listen(tg);
  const sa = await createServiceAccount(tg);
  const bases: string[] = [];
  const agent = new Agent().compose(signingInterceptor({ accessId: sa.account.access_id, privateKey: sa.privateKey, onSigned: (s) => bases.push(s.base) }));
  t.teardown(() => agent.close());
  // Type-level too: it fits compose() of the undici Node bundles (undici-types) as well as undici 7's.
  const forNodesUndici: NodeBundledDispatcher.DispatcherComposeInterceptor = signingInterceptor({ accessId: ACCESS_ID, privateKey });
  t.type(forNodesUndici, 'function');

  for (let i = 0; i < 2; i++) {
    const response = await request(`${publicUrl}/v1/balance`, { dispatcher: agent });
    t.equal(response.statusCode, 200, `request ${i + 1} through one dispatcher: ${await response.body.text()}`);
  }
  t.not(bases[0], bases[1], 'each request has its own nonce');

  const streamed = await request(`${publicUrl}/v1/transfers`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: Readable.from(['{"amount":', '"1.00"}']),
    dispatcher: agent,
  });
  t.equal(streamed.statusCode, 200, await streamed.body.text());
  t.equal(tg.upstreams.banking.received.at(-1)!.body, '{"amount":"1.00"}', 'a streamed body reaches the upstream');

  // A Client's dispatches carry no origin: the option supplies it.
  const client = new Client(publicUrl).compose(signingInterceptor({ accessId: sa.account.access_id, privateKey: sa.privateKey, origin: publicUrl }));
  t.teardown(() => client.close());
  const viaClient = await client.request({ path: '/v1/account', method: 'GET' });
  t.equal(viaClient.statusCode, 200, await viaClient.body.text());

  // Signed with another key: the 401's signature_base is the base the client signed, to diff against.
  let signedBase = '';
  const wrongKey = new Agent().compose(
    signingInterceptor({ accessId: sa.account.access_id, privateKey: generateKeyPairSync('ed25519').privateKey, onSigned: (s) => (signedBase = s.base) }),
  );
  t.teardown(() => wrongKey.close());
  const refused = await request(`${publicUrl}/v1/balance?page=1`, { dispatcher: wrongKey });
  const body = (await refused.body.json()) as { error: string; signature_base?: string };
  t.equal(refused.statusCode, 401);
  t.equal(body.error, 'signature_invalid');
  t.equal(body.signature_base, signedBase, 'the gateway computed the base the client signed: the key is what differs');
});
