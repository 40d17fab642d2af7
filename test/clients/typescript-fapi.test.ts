// The client package's FAPI 2.0 request signatures (clients/typescript/src/fapi.ts): with each key
// type a client may register, what it covers and with which parameters, verified by the independent
// http-message-signatures package (its verify step written here from RFC 9421 section 3.3) and by
// the gateway's own verifier; and the keys and requests it refuses.
import { constants, createPublicKey, generateKeyPairSync, verify, type KeyObject } from 'node:crypto';
import { httpbis } from 'http-message-signatures';
import t from 'tap';
import { contentDigest, FAPI_REQUEST_TAG, signFapiRequest } from '../../clients/typescript/src/index.js';
import { httpSignatureVerifies } from '../../gateway/oauth/http-signature-algorithms.js';
import { keyPair, type KeyKind } from '../helpers/client-assertion.js';

const RFC_VERIFY: Record<string, (data: Buffer, signature: Buffer, key: KeyObject) => boolean> = {
  ed25519: (data, signature, key) => verify(null, data, key, signature),
  'ecdsa-p256-sha256': (data, signature, key) => verify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, signature),
  'rsa-pss-sha512': (data, signature, key) => verify('sha512', data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 64 }, signature),
};

const EXPECTED_ALG: Record<KeyKind, string> = { Ed25519: 'ed25519', 'P-256': 'ecdsa-p256-sha256', RSA: 'rsa-pss-sha512' };

for (const kind of ['Ed25519', 'P-256', 'RSA'] as const) {
  t.test(`${kind}: signed by the package, verified independently and by the gateway`, async (t) => {
    const pair = keyPair(kind, 'k1');
    const url = 'https://api.bank.test/v1/payments?dry_run=1';
    const headers = { authorization: 'DPoP token', dpop: 'proof', 'content-type': 'application/json' };
    const body = '{"amount":"10.00"}';
    const signed = signFapiRequest({ method: 'post', url, headers, body, privateKey: pair.privateKey, keyid: 'k1', created: 1_764_000_000, nonce: 'n-1' });
    t.equal(
      signed.headers['signature-input'],
      `sig1=("@method" "@target-uri" "authorization" "dpop" "content-digest");created=1764000000;nonce="n-1";alg="${EXPECTED_ALG[kind]}";keyid="k1";tag="${FAPI_REQUEST_TAG}"`,
    );
    t.equal(signed.headers['content-digest'], contentDigest(body), 'a digest of the body is added');
    t.match(
      signed.base,
      /^"@method": POST\n"@target-uri": https:\/\/api\.bank\.test\/v1\/payments\?dry_run=1\n"authorization": DPoP token\n"dpop": proof\n"content-digest": sha-256=/,
    );

    const publicKey = createPublicKey(pair.privateKey);
    const verified = await httpbis.verifyMessage(
      {
        keyLookup: async (params) =>
          params.keyid === 'k1'
            ? { id: 'k1', algs: [EXPECTED_ALG[kind]], verify: async (data, signature) => RFC_VERIFY[EXPECTED_ALG[kind]]!(data, signature, publicKey) }
            : null,
        requiredFields: ['@method', '@target-uri', 'authorization', 'dpop', 'content-digest'],
        requiredParams: ['created', 'keyid', 'tag'],
        notAfter: 1_764_000_001,
      },
      { method: 'POST', url, headers: { ...headers, ...signed.headers } },
    );
    t.equal(verified, true, 'http-message-signatures verifies it');
    const signature = Buffer.from(/:([^:]+):/.exec(signed.headers.signature!)![1]!, 'base64');
    t.ok(httpSignatureVerifies(signed.base, signature, pair.publicJwk), "the gateway's verifier accepts it with the registered JWK");
    t.notOk(httpSignatureVerifies(`${signed.base} `, signature, pair.publicJwk), 'and not for another base');
  });
}

t.test('no body: no digest covered; the keys and requests it refuses', async (t) => {
  const key = keyPair('Ed25519').privateKey;
  const signed = signFapiRequest({
    method: 'GET',
    url: 'https://api.bank.test/v1/accounts',
    headers: { Authorization: 'Bearer t' },
    privateKey: key,
    keyid: 'k1',
  });
  t.equal(signed.headers['content-digest'], undefined);
  t.match(
    signed.headers['signature-input'],
    /^sig1=\("@method" "@target-uri" "authorization"\);created=\d+;nonce="[A-Za-z0-9_-]{22}";alg="ed25519";keyid="k1";tag="fapi-2-request"$/,
  );
  const request = { method: 'GET', url: 'https://api.bank.test/v1/accounts', privateKey: key, keyid: 'k1' };
  t.throws(() => signFapiRequest({ ...request, headers: {} }), { name: 'TypeError', message: /must carry authorization/ });
  t.throws(() => signFapiRequest({ ...request, headers: { authorization: 'Bearer t' }, privateKey: createPublicKey(key) }), {
    message: /signed with the private key/,
  });
  const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey;
  t.throws(() => signFapiRequest({ ...request, headers: { authorization: 'Bearer t' }, privateKey: p384 }), { message: /Ed25519, P-256 or RSA/ });
});
