// The response-signing key: read from its PEM file (refusals naming the file and the problem, never
// its content), generated where none is configured, published with its thumbprint as kid; and the
// start's check that production names a key file when a route signs responses.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { jwkThumbprint } from '../../gateway/oauth/client-jwks.js';
import { loadPolicies } from '../../gateway/policy/policy-loader.js';
import { generatedResponseSigningKey, readResponseSigningKey, responseSigningJwks } from '../../gateway/signing/response-signing-key.js';
import { missingResponseSigningKey } from '../../gateway/pipeline/response-signing.js';
import { policyDirWith } from '../helpers/policy-dir.js';

function fileWith(t: Test, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'gw-response-key-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'key.pem');
  writeFileSync(file, text);
  return file;
}

t.test('an Ed25519 PEM key is read and published under its thumbprint', async (t) => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const key = readResponseSigningKey(fileWith(t, privateKey.export({ format: 'pem', type: 'pkcs8' }).toString()));
  const { crv, kty, x } = publicKey.export({ format: 'jwk' }) as Record<string, string>;
  const kid = jwkThumbprint({ crv: crv!, kty: kty!, x: x! });
  t.equal(key.keyid, kid);
  t.same(responseSigningJwks(key), { keys: [{ crv: 'Ed25519', kty: 'OKP', x, kid, use: 'sig' }] }, 'only the public members');
  t.not(generatedResponseSigningKey().keyid, generatedResponseSigningKey().keyid, 'a generated key is new each time');
});

t.test('a file that is not an Ed25519 private key is refused, saying what is wrong', async (t) => {
  const secret = 'not-a-key-but-a-secret';
  const refusal = t.throws(() => readResponseSigningKey(fileWith(t, secret))) as Error;
  t.match(refusal.message, /key\.pem cannot be read: not a private key in PEM/);
  t.notMatch(refusal.message, secret, 'the content is never quoted');
  const p256 = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  t.throws(() => readResponseSigningKey(fileWith(t, p256)), { message: /holds a ec key; an Ed25519 private key is required/ });
  t.throws(() => readResponseSigningKey('/nonexistent/key.pem'), { message: '/nonexistent/key.pem cannot be read: ENOENT' });
});

t.test('production with a message_signing route needs the key file', async (t) => {
  const { routes } = loadPolicies(
    policyDirWith(t, {
      'fapi.yaml': 'upstream: public\nauth: bearer\nmessage_signing: fapi-2\nroutes:\n  - { method: GET, path: /v1/fapi/a, scopes: [sales] }\n',
    }),
  );
  const settings = { maxSignedResponseBytes: 1024, responseSigningKeyFile: undefined };
  t.same(missingResponseSigningKey(routes, { ...settings, environment: 'development' }), [], 'development generates one');
  t.same(missingResponseSigningKey(routes, { ...settings, environment: 'production', responseSigningKeyFile: '/etc/gw/key.pem' }), []);
  t.same(missingResponseSigningKey(routes, { ...settings, environment: 'production' }), [
    {
      setting: 'GATEWAY_RESPONSE_SIGNING_KEY_FILE',
      problem:
        'is required in production when a route signs its responses (message_signing), so that every instance signs with the one published key: route fapi:GET /v1/fapi/a',
    },
  ]);
  const unsigned = loadPolicies(policyDirWith(t, {})).routes;
  t.same(missingResponseSigningKey(unsigned, { ...settings, environment: 'production' }), [], 'no route signs: no key needed');
});
