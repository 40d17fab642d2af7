// The admin API's private_key_jwt clients: created with public keys (each refused with a 400 that
// names the problem: a private key, a small-order Ed25519 key, a short RSA key, ...), shown with
// their method and public JWKs, and their keys rotated as a service account's are: add a second key,
// both verify, remove the old one; never a third key, never the last one, never on a secret client.
import t, { type Test } from 'tap';
import { generateKeyPairSync } from 'node:crypto';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { tokenRequest } from '../helpers/oauth.js';
import { assertionForm, claimsFor, keyPair, signAssertion, type TestKeyPair } from '../helpers/client-assertion.js';

const ISSUER = 'http://gateway.test';

function admin(tg: TestGateway, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) {
  return tg.gateway.adminApp.inject({ method, url, headers: { authorization: `Bearer ${tg.adminToken}` }, ...(payload === undefined ? {} : { payload }) });
}

const create = (tg: TestGateway, extra: Record<string, unknown>) => admin(tg, 'POST', '/admin/v1/clients', { name: 'key client', scopes: ['sales'], ...extra });

async function refusedCreation(t: Test, tg: TestGateway, extra: Record<string, unknown>, field: string, message: string | RegExp): Promise<void> {
  const response = await create(tg, extra);
  t.equal(response.statusCode, 400, `${field}: 400`);
  const body = response.json<Record<string, unknown>>();
  t.match(body, { error: 'validation_error', field }, `${field}: validation_error`);
  if (typeof message === 'string') t.equal(body.message, `${field}: ${message}`);
  else t.match(body.message, message);
  t.equal(body.client_id, undefined, 'nothing created');
}

const pkjwt = (keys: unknown[]) => ({ token_endpoint_auth_method: 'private_key_jwt', jwks: { keys } });

async function tokenStatus(tg: TestGateway, clientId: string, key: TestKeyPair): Promise<number> {
  const jws = signAssertion({ alg: key.alg, kid: key.publicJwk.kid }, claimsFor(clientId, ISSUER), key);
  return (await tokenRequest(tg, assertionForm(jws))).statusCode;
}

t.test('creation refuses keys that cannot serve, each with a 400 that names the problem', async (t) => {
  const tg = await startTestGateway(t);
  const ed = keyPair('Ed25519', 'k1');
  const privateJwk = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
  await refusedCreation(t, tg, pkjwt([privateJwk]), 'jwks', /is a private JWK \(it has "d"\), not a public key/);
  const rsaPrivate = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
  await refusedCreation(t, tg, pkjwt([ed.publicJwk, rsaPrivate]), 'jwks', /is a private JWK \(it has "d"\)/);
  await refusedCreation(t, tg, pkjwt([{ kty: 'oct', k: 'c2VjcmV0' }]), 'jwks', /is a secret \(symmetric\) JWK/);
  const identity = Buffer.alloc(32);
  identity[0] = 1;
  await refusedCreation(t, tg, pkjwt([{ kty: 'OKP', crv: 'Ed25519', x: identity.toString('base64url') }]), 'jwks', /small order|identity point/);
  await refusedCreation(t, tg, pkjwt([{ kty: 'OKP', crv: 'Ed25519', x: `${ed.publicJwk.x}=` }]), 'jwks', /not unpadded base64url|base64url/);
  const short = keyPair('RSA', 'short', 1024);
  await refusedCreation(t, tg, pkjwt([short.publicJwk]), 'jwks', 'key 0 is an RSA key of 1024 bits; from 2048 to 8192 are accepted');
  await refusedCreation(t, tg, pkjwt([{ kty: 'EC', crv: 'P-384', x: 'AA', y: 'AA' }]), 'jwks', /crv is not "P-256"/);
  const rsa = keyPair('RSA', 'long-e').publicJwk;
  await refusedCreation(t, tg, pkjwt([{ ...rsa, e: Buffer.alloc(5, 1).toString('base64url') }]), 'jwks', 'key 0 has an "e" longer than 4 bytes');
  const p256 = keyPair('P-256').publicJwk;
  await refusedCreation(t, tg, pkjwt([{ ...p256, y: p256.x }]), 'jwks', 'key 0 is not a point on P-256');
  await refusedCreation(t, tg, pkjwt([{ ...ed.publicJwk, alg: 'RS256' }]), 'jwks', /alg that does not fit its key type/);
  await refusedCreation(t, tg, pkjwt([ed.publicJwk, keyPair('Ed25519', 'k2').publicJwk, keyPair('Ed25519', 'k3').publicJwk]), 'jwks', /must hold 1 or 2 keys/);
  await refusedCreation(t, tg, pkjwt([ed.publicJwk, keyPair('Ed25519', 'k1').publicJwk]), 'jwks', 'holds two keys with the same kid');
  await refusedCreation(t, tg, pkjwt([ed.publicJwk, { ...ed.publicJwk, kid: 'other' }]), 'jwks', 'holds the same key twice');
  await refusedCreation(t, tg, pkjwt([{ ...ed.publicJwk, kid: 'a/b' }]), 'jwks', /has a kid that is not/);
  await refusedCreation(t, tg, { token_endpoint_auth_method: 'private_key_jwt' }, 'jwks', /is required with token_endpoint_auth_method private_key_jwt/);
  await refusedCreation(t, tg, { jwks: { keys: [ed.publicJwk] } }, 'jwks', /is only for token_endpoint_auth_method private_key_jwt/);
  await refusedCreation(
    t,
    tg,
    { token_endpoint_auth_method: 'client_secret_jwt' },
    'token_endpoint_auth_method',
    '"client_secret_jwt" is not one of: client_secret_basic, client_secret_post, private_key_jwt',
  );
  const list = await admin(tg, 'GET', '/admin/v1/clients');
  t.same(list.json<{ clients: unknown[] }>().clients, [], 'no client was created');
});

t.test('a private key in the answer is never repeated back', async (t) => {
  const tg = await startTestGateway(t);
  const privateJwk = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
  const response = await create(tg, pkjwt([privateJwk]));
  t.equal(response.statusCode, 400);
  t.notOk(response.body.includes(privateJwk.d!), 'the private member is not in the answer');
});

t.test('GET shows the method and the public keys; a secret client has jwks null', async (t) => {
  const tg = await startTestGateway(t);
  const key = keyPair('P-256', 'p1');
  const created = await create(tg, pkjwt([key.publicJwk]));
  t.equal(created.statusCode, 201);
  const { client_id } = created.json<{ client_id: string }>();
  const shown = await admin(tg, 'GET', `/admin/v1/clients/${client_id}`);
  t.match(shown.json(), { client_id, token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [key.publicJwk] } });
  t.notOk('client_secret' in shown.json<object>());
  const secret = await create(tg, { token_endpoint_auth_method: 'client_secret_post' });
  t.match(secret.json(), { token_endpoint_auth_method: 'client_secret_post', jwks: null, client_secret: /.+/ });
});

t.test('key rotation: add a second key (both verify), remove the old one (it fails at once); limits and conflicts', async (t) => {
  const tg = await startTestGateway(t, {
    config: { throttle_max_failures: 1000, throttle_max_failures_per_address: 1000, throttle_max_failures_per_credential: 2000 },
  });
  const oldKey = keyPair('Ed25519', 'old');
  const newKey = keyPair('RSA', 'new');
  const created = await create(tg, pkjwt([oldKey.publicJwk]));
  const { client_id } = created.json<{ client_id: string }>();
  const keysUrl = `/admin/v1/clients/${client_id}/keys`;

  const added = await admin(tg, 'POST', keysUrl, { jwk: newKey.publicJwk });
  t.equal(added.statusCode, 201, added.body);
  t.same(added.json<{ jwks: unknown }>().jwks, { keys: [oldKey.publicJwk, newKey.publicJwk] });
  t.equal(await tokenStatus(tg, client_id, oldKey), 200, 'the old key still works');
  t.equal(await tokenStatus(tg, client_id, newKey), 200, 'the new key works');

  const third = await admin(tg, 'POST', keysUrl, { jwk: keyPair('P-256', 'third').publicJwk });
  t.equal(third.statusCode, 409);
  t.match(third.json(), { error: 'client_key_limit', field: 'jwk' });
  const again = await admin(tg, 'POST', keysUrl, { jwk: { ...newKey.publicJwk, kid: 'again' } });
  t.equal(again.statusCode, 409);
  t.match(again.json(), { error: 'client_key_exists' });
  const privateAdd = await admin(tg, 'POST', keysUrl, { jwk: generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }) });
  t.equal(privateAdd.statusCode, 400);
  t.match(privateAdd.json(), { error: 'validation_error', field: 'jwk', message: /jwk: is a private JWK/ });

  const removed = await admin(tg, 'DELETE', `${keysUrl}/old`);
  t.equal(removed.statusCode, 200, removed.body);
  t.same(removed.json<{ jwks: unknown }>().jwks, { keys: [newKey.publicJwk] });
  t.equal(await tokenStatus(tg, client_id, oldKey), 401, 'the removed key fails at once');
  t.equal(await tokenStatus(tg, client_id, newKey), 200);

  const last = await admin(tg, 'DELETE', `${keysUrl}/new`);
  t.equal(last.statusCode, 409);
  t.match(last.json(), { error: 'client_last_key', message: /new is the client's only key/ });
  const unknown = await admin(tg, 'DELETE', `${keysUrl}/nope`);
  t.equal(unknown.statusCode, 404);
  t.match(unknown.json(), { error: 'not_found', message: 'The client holds no key with that kid.' });
  const noClient = await admin(tg, 'POST', '/admin/v1/clients/00000000-0000-4000-8000-000000000000/keys', { jwk: keyPair('Ed25519').publicJwk });
  t.equal(noClient.statusCode, 404);

  const roll = await admin(tg, 'POST', `/admin/v1/clients/${client_id}/secret`, {});
  t.equal(roll.statusCode, 409);
  t.match(roll.json(), { error: 'client_method_mismatch' });
  t.equal(roll.json<Record<string, unknown>>().client_secret, undefined, 'no secret was made');

  const secretClient = (await create(tg, {})).json<{ client_id: string }>();
  const onSecret = await admin(tg, 'POST', `/admin/v1/clients/${secretClient.client_id}/keys`, { jwk: keyPair('Ed25519').publicJwk });
  t.equal(onSecret.statusCode, 409);
  t.match(onSecret.json(), { error: 'client_method_mismatch' });
});
