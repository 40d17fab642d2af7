// 401s that say what to fix: each kind of signature problem has its own code, a signature that
// does not verify answers the exact signature base the gateway computed (so the client can diff it
// against the one it signed), and Accept-Signature names every parameter the gateway requires.
import { generateKeyPairSync, randomBytes, randomUUID, type KeyObject } from 'node:crypto';
import t, { type Test } from 'tap';
import { headerFields, requestFromUrl, signMessage, type SignatureParameters } from '../../gateway/signing/index.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { BANKING_HOST, createServiceAccount, customSignature, type TestServiceAccount } from '../helpers/signing.js';

const REQUIRED = ['@method', '@authority', '@path', '@query', 'x-access-id'];

let tg: TestGateway;
let sa: TestServiceAccount;

t.before(async () => {
  tg = await startTestGateway(t);
  sa = await createServiceAccount(tg, { permissions: ['view_balance', 'view_transactions'] });
});

/** Signs as a client would, and keeps the signature base the client's own signing produced. */
function clientSigned(options: { url: string; key?: KeyObject; components?: string[]; params?: SignatureParameters; headers?: Record<string, string> }) {
  const headers: Record<string, string> = { host: BANKING_HOST, 'x-access-id': sa.account.access_id, ...(options.headers ?? {}) };
  const params: SignatureParameters = {
    created: Math.floor(Date.now() / 1000),
    nonce: randomUUID(),
    keyid: sa.account.access_id,
    alg: 'ed25519',
    ...options.params,
  };
  const request = requestFromUrl('GET', `http://${BANKING_HOST}${options.url}`, headerFields(Object.entries(headers)));
  const signed = signMessage(request, options.components ?? REQUIRED, params, options.key ?? sa.privateKey);
  const sent: Record<string, string> & { 'signature-input': string; signature: string } = {
    ...headers,
    'signature-input': signed['signature-input'],
    signature: signed.signature,
  };
  return { headers: sent, base: signed.base };
}

async function refused(t: Test, headers: Record<string, string>, code: string, url = '/v1/balance') {
  const contacted = tg.upstreams.banking.received.length;
  const response = await tg.gateway.publicApp.inject({ method: 'GET', url, headers });
  t.equal(response.statusCode, 401, response.body);
  const body = response.json<Record<string, string>>();
  t.equal(body.error, code);
  t.ok(body.message && body.message.length > 0, 'a message says why');
  t.match(body.request_id, /^[0-9a-f]{8}-[0-9a-f-]{27}$/);
  t.equal(
    response.headers['accept-signature'],
    `sig1=("@method" "@authority" "@path" "@query" "x-access-id");created;nonce;keyid="${sa.account.access_id}";alg="ed25519"`,
    'Accept-Signature names created, nonce, keyid and alg',
  );
  t.equal(tg.upstreams.banking.received.length, contacted, 'the upstream was not contacted');
  return body;
}

t.test('a signature that does not verify: signature_invalid with the base the client signed', async (t) => {
  const wrongKey = clientSigned({ url: '/v1/balance', key: generateKeyPairSync('ed25519').privateKey });
  const body = await refused(t, wrongKey.headers, 'signature_invalid');
  t.equal(body.signature_base, wrongKey.base, 'signed with another key: the bases are the same, so the key is what differs');
  t.same(Object.keys(body).sort(), ['error', 'message', 'registered_keys', 'request_id', 'signature_base']);
  t.equal(body.registered_keys, sa.account.fingerprint, "and the registered key's fingerprint says which key file is the right one");
  t.match(body.message, sa.account.fingerprint);

  const withBody = clientSigned({
    url: '/v1/balance',
    key: generateKeyPairSync('ed25519').privateKey,
    components: [...REQUIRED, 'x-trace'],
    headers: { 'x-trace': 'a b' },
  });
  t.equal((await refused(t, withBody.headers, 'signature_invalid')).signature_base, withBody.base, 'covered header fields appear as the client signed them');
});

t.test('a request changed after signing: the base shows the line that differs', async (t) => {
  const signed = clientSigned({ url: '/v1/transactions?page=1' });
  const body = await refused(t, signed.headers, 'signature_invalid', '/v1/transactions?page=2');
  t.not(body.signature_base, signed.base);
  t.equal(body.signature_base, signed.base.replace('"@query": ?page=1', '"@query": ?page=2'), 'only the @query line differs');
  t.notOk(body.signature_base!.includes(signed.headers.signature.slice(6, -1)), 'the base does not carry the signature');
});

t.test("a signature outside its window: the refusal states its created and the gateway's time", async (t) => {
  const now = Math.floor(Date.now() / 1000);
  const old = await refused(t, clientSigned({ url: '/v1/balance', params: { created: now - 3600 } }).headers, 'signature_expired');
  t.equal(old.created, String(now - 3600));
  t.ok(Math.abs(Number(old.gateway_time) - now) <= 2, 'the gateway time is now');
  t.match(old.message, new RegExp(`created=${now - 3600}, the gateway's time is \\d+: -36\\d\\d s apart`));
  const ahead = await refused(t, clientSigned({ url: '/v1/balance', params: { created: now + 600 } }).headers, 'signature_not_yet_valid');
  t.equal(ahead.created, String(now + 600));
  t.match(ahead.message, /: (59\d|600) s apart\); check the client clock/);
});

t.test('malformed headers: signature_malformed, without a base', async (t) => {
  const good = clientSigned({ url: '/v1/balance' });
  for (const [what, headers] of [
    ['Signature-Input is not a dictionary', { ...good.headers, 'signature-input': 'sig1=("@method"' }],
    ['Signature is not a dictionary', { ...good.headers, signature: 'sig1=:not base64' }],
    ['Signature lacks the label', { ...good.headers, signature: `other=:${randomBytes(64).toString('base64')}:` }],
    ['created is not an integer', { ...good.headers, 'signature-input': good.headers['signature-input'].replace(/created=\d+/, 'created="soon"') }],
  ] as const) {
    const body = await refused(t, headers, 'signature_malformed');
    t.equal(body.signature_base, undefined, what);
  }
});

t.test('keyid and x-access-id disagree, or two signatures share the keyid', async (t) => {
  const good = clientSigned({ url: '/v1/balance' });
  const mismatch = await refused(
    t,
    { ...good.headers, 'signature-input': good.headers['signature-input'].replace(sa.account.access_id, randomUUID()) },
    'signature_keyid_mismatch',
  );
  t.equal(mismatch.message, 'No signature has a keyid equal to the x-access-id header.');
  const second = clientSigned({ url: '/v1/balance' });
  const twice = {
    ...good.headers,
    'signature-input': `${good.headers['signature-input']}, ${second.headers['signature-input'].replace(/^sig1=/, 'sig2=')}`,
    signature: `${good.headers.signature}, ${second.headers.signature.replace(/^sig1=/, 'sig2=')}`,
  };
  t.equal((await refused(t, twice, 'signature_ambiguous')).message, 'More than one signature has a keyid equal to the x-access-id header.');
});

t.test('a required component not covered: signature_components_missing', async (t) => {
  const body = await refused(
    t,
    customSignature(sa, { method: 'GET', url: '/v1/balance', components: REQUIRED.filter((c) => c !== '@query') }),
    'signature_components_missing',
  );
  t.equal(body.message, 'The signature must also cover "@query".');
});

t.test('a covered component the request lacks, or one the gateway does not implement', async (t) => {
  const signed = clientSigned({ url: '/v1/balance', components: [...REQUIRED, 'x-trace'], headers: { 'x-trace': '1' } });
  const { 'x-trace': _dropped, ...withoutTrace } = signed.headers;
  t.equal((await refused(t, withoutTrace, 'signature_component_unavailable')).message, 'The covered component "x-trace" is not present in the request.');

  const good = clientSigned({ url: '/v1/balance' });
  const status = { ...good.headers, 'signature-input': good.headers['signature-input'].replace('"x-access-id")', '"x-access-id" "@status")') };
  t.equal((await refused(t, status, 'signature_component_unsupported')).message, 'The derived component "@status" is not supported.');
  const withParameter = { ...good.headers, 'signature-input': good.headers['signature-input'].replace('"x-access-id")', '"x-access-id" "x-trace";sf)') };
  t.match((await refused(t, withParameter, 'signature_component_unsupported')).message, /has parameters/);
});

t.test('created and nonce missing or out of shape: signature_parameters_invalid', async (t) => {
  const now = Math.floor(Date.now() / 1000);
  const cases: [SignatureParameters, string][] = [
    [{ created: undefined }, 'The signature has no created parameter.'],
    [{ nonce: undefined }, 'The signature needs a nonce parameter of 1 to 128 characters.'],
    [{ nonce: 'n'.repeat(129) }, 'The signature needs a nonce parameter of 1 to 128 characters.'],
    [{ created: now, expires: now - 1 }, 'The signature expires before it was created.'],
  ];
  for (const [params, message] of cases) {
    const body = await refused(t, customSignature(sa, { method: 'GET', url: '/v1/balance', components: REQUIRED, params }), 'signature_parameters_invalid');
    t.equal(body.message, message);
  }
});

t.test('each refusal is counted under its own reason', async (t) => {
  const metrics = (await tg.gateway.adminApp.inject({ method: 'GET', url: '/metrics' })).body;
  for (const code of [
    'signature_invalid',
    'signature_malformed',
    'signature_keyid_mismatch',
    'signature_ambiguous',
    'signature_components_missing',
    'signature_component_unavailable',
    'signature_component_unsupported',
    'signature_parameters_invalid',
  ]) {
    t.match(metrics, new RegExp(`gateway_auth_failures_total\\{scheme="signature",reason="${code}"\\} [1-9]`), code);
  }
  t.notOk(tg.logs.text.includes('@signature-params'), 'no log line carries a signature base');
});
