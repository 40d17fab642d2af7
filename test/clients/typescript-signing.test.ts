// The client package's request-level API (clients/typescript/src): signRequest keeps its contract
// whatever form the key takes, the signature base helpers give the base the gateway rebuilds, and
// signedFetch reaches a listening gateway, reporting the base to diff against a 401.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import t from 'tap';
import {
  loadPrivateKey,
  requestSignatureBase,
  signedFetch,
  signMessage,
  signRequest,
  signRequestWithBase,
  requestFromUrl,
  headerFields,
  type SignedRequest,
} from '../../clients/typescript/src/index.js';
import { verifyRequestSignature } from '../../gateway/signing/index.js';
import { startTestGateway } from '../helpers/gateway.js';
import { listen } from '../helpers/http.js';
import { openSshPrivateKey, pkcs8PemOfSeed } from '../helpers/openssh-key.js';
import { createServiceAccount } from '../helpers/signing.js';

const ACCESS_ID = '3f2b9c1e-7a4d-4e8f-9b6a-2c1d0e5f4a3b';
const REQUEST = {
  method: 'post',
  url: 'https://bank.example.com/v1/transfers?idempotency_key=1',
  headers: { 'content-type': 'application/json' },
  body: '{"amount":"1.00"}',
  accessId: ACCESS_ID,
  created: 1735689600,
  nonce: 'n-1',
};

t.test('every key form signs identically, and the base helpers agree with the verifier', async (t) => {
  const seed = randomBytes(32);
  const forms = {
    'OpenSSH text': openSshPrivateKey(seed),
    'OpenSSH bytes': Buffer.from(openSshPrivateKey(seed)),
    'PKCS#8 text': pkcs8PemOfSeed(seed),
    KeyObject: loadPrivateKey(pkcs8PemOfSeed(seed)),
  };
  const signed = Object.entries(forms).map(([name, privateKey]) => [name, signRequestWithBase({ ...REQUEST, privateKey })] as const);
  for (const [name, result] of signed) t.same(result, signed[0]![1], `${name}: the same headers and base`);
  const { headers, base } = signed[0]![1];
  t.same(Object.keys(headers), ['x-access-id', 'content-digest', 'signature-input', 'signature'], 'the profile headers');
  t.same(signRequest({ ...REQUEST, privateKey: forms.KeyObject }), headers, 'signRequest: the same headers');
  t.equal(requestSignatureBase(REQUEST), base, 'requestSignatureBase: the same base, without a key');
  const received = requestFromUrl('POST', REQUEST.url, headerFields(Object.entries({ ...REQUEST.headers, ...headers })));
  t.equal(verifyRequestSignature(received, { keyid: ACCESS_ID, publicKey: forms.KeyObject }).base, base, 'the verifier rebuilds that base');
});

t.test('signing headers passed in are replaced, never covered twice', async (t) => {
  const { privateKey } = generateKeyPairSync('ed25519');
  const stale = { ...REQUEST.headers, 'X-Access-Id': 'other', Signature: 'sig1=:AA==:' };
  const { base } = signRequestWithBase({ ...REQUEST, headers: stale, privateKey });
  t.match(base, `"x-access-id": ${ACCESS_ID}\n`);
  t.notMatch(base, /other/);
});

t.test('only an Ed25519 private key signs', async (t) => {
  const request = requestFromUrl('GET', 'https://bank.example.com/', headerFields([]));
  t.throws(() => signMessage(request, ['@method'], { created: 1 }, generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey), {
    name: 'PrivateKeyError',
  });
  t.throws(() => signRequest({ ...REQUEST, privateKey: generateKeyPairSync('ed25519').publicKey }), { name: 'PrivateKeyError' });
});

t.test('signedFetch against a listening gateway', async (t) => {
  const tg = await startTestGateway(t);
  const { publicUrl } = await listen(tg);
  const sa = await createServiceAccount(tg);
  let reported: SignedRequest | undefined;
  const response = await signedFetch(`${publicUrl}/v1/transfers`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-access-id': 'stale' },
    body: '{"amount":"2.00"}',
    accessId: sa.account.access_id,
    privateKey: sa.privateKey,
    signal: AbortSignal.timeout(10_000),
    onSigned: (signed) => (reported = signed),
  });
  t.equal(response.status, 200, await response.text());
  const received = tg.upstreams.banking.received.at(-1)!;
  t.equal(received.body, '{"amount":"2.00"}');
  t.equal(received.headers['x-gateway-service-account-id'], sa.account.id);
  t.match(reported?.base, /^"@method": POST\n/, 'onSigned saw the base');

  const refused = await signedFetch(`${publicUrl}/v1/balance`, {
    accessId: sa.account.access_id,
    privateKey: generateKeyPairSync('ed25519').privateKey,
    onSigned: (signed) => (reported = signed),
  });
  const body = (await refused.json()) as { error: string; signature_base?: string };
  t.equal(refused.status, 401);
  t.equal(body.signature_base, reported?.base, 'a 401 names the base the gateway computed: here the one signed, so the key is wrong');
});

t.test('a missing Access ID is named, not reported as a malformed keyid', async (t) => {
  const { privateKey } = generateKeyPairSync('ed25519');
  for (const accessId of [undefined, '']) {
    t.throws(() => signRequest({ ...REQUEST, accessId: accessId as unknown as string, privateKey }), {
      name: 'TypeError',
      message: /^accessId is required: the service account's Access ID \(a UUID\), got (undefined|an empty string)$/,
    });
  }
});
