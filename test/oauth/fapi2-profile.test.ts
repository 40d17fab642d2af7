// GATEWAY_OAUTH_PROFILE=fapi2: the token endpoint as the FAPI 2.0 Security Profile asks of a
// client-credentials server. A new client is key-bound (private_key_jwt) and DPoP-bound whatever
// the request leaves out, and asking otherwise is a 400 naming the field; a secret never
// authenticates, at any of the three endpoints, even a client created before the switch; every token
// needs a DPoP proof; an assertion's aud is the issuer alone, as a string; the metadata advertises
// only private_key_jwt; tokens live minutes by default.
import { generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import t from 'tap';
import { settingsFrom } from '../../gateway/config/settings.js';
import { dpopProof } from '../../clients/typescript/src/index.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { createClient } from '../helpers/oauth.js';

const ISSUER = 'http://gateway.test';
const TOKEN_URL = `${ISSUER}/v1/oauth/token`;

function assertion(clientId: string, key: KeyObject, aud: unknown = ISSUER): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const input = `${part({ alg: 'EdDSA', kid: 'k1' })}.${part({ iss: clientId, sub: clientId, aud, iat: now, exp: now + 60, jti: randomUUID() })}`;
  return `${input}.${sign(null, Buffer.from(input), key).toString('base64url')}`;
}

function tokenRequest(tg: TestGateway, form: Record<string, string>, headers: Record<string, string> = {}) {
  return tg.gateway.publicApp.inject({
    method: 'POST',
    url: '/v1/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams(form).toString(),
  });
}

function createKeyClient(tg: TestGateway, extra: Record<string, unknown> = {}) {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'k1' };
  return {
    privateKey,
    response: tg.gateway.adminApp.inject({
      method: 'POST',
      url: '/admin/v1/clients',
      headers: { authorization: `Bearer ${tg.adminToken}` },
      payload: { name: 'fapi client', scopes: ['sales'], jwks: { keys: [jwk] }, ...extra },
    }),
  };
}

t.test('the profile: tokens of minutes by default, an explicit lifetime kept', async (t) => {
  t.equal(settingsFrom({}, {}).tokenTtlSeconds, 86_400);
  t.equal(settingsFrom({}, { GATEWAY_OAUTH_PROFILE: 'fapi2' }).tokenTtlSeconds, 600);
  t.equal(settingsFrom({ oauth_profile: 'fapi2', token_ttl_seconds: 300 }, {}).tokenTtlSeconds, 300);
  t.throws(() => settingsFrom({}, { GATEWAY_OAUTH_PROFILE: 'fapi' }), /GATEWAY_OAUTH_PROFILE/);
});

t.test('fapi2: key-bound, DPoP-bound clients; no secret; a proof with every token request', async (t) => {
  // A secret client made before the switch, on the same store: it must not get tokens afterwards.
  const before = await startTestGateway(t, { config: { issuer: ISSUER } });
  const older = await createClient(before, ['sales']);
  const tg = await startTestGateway(t, { redisPrefix: before.redisPrefix!, config: { issuer: ISSUER, oauth_profile: 'fapi2' } });

  const metadata = (await tg.gateway.publicApp.inject({ url: '/.well-known/oauth-authorization-server' })).json<Record<string, unknown>>();
  t.same(metadata.token_endpoint_auth_methods_supported, ['private_key_jwt']);
  t.same(metadata.introspection_endpoint_auth_methods_supported, ['private_key_jwt']);

  const { privateKey, response } = createKeyClient(tg);
  const created = await response;
  t.equal(created.statusCode, 201, created.body);
  const client = created.json<{ client_id: string; token_endpoint_auth_method: string; dpop_bound_access_tokens: boolean; client_secret?: string }>();
  t.equal(client.token_endpoint_auth_method, 'private_key_jwt', 'private_key_jwt without asking');
  t.equal(client.dpop_bound_access_tokens, true, 'DPoP-bound without asking');
  t.equal(client.client_secret, undefined);

  for (const [field, extra] of [
    ['token_endpoint_auth_method', { token_endpoint_auth_method: 'client_secret_basic' }],
    ['dpop_bound_access_tokens', { dpop_bound_access_tokens: false }],
  ] as const) {
    const refused = await createKeyClient(tg, extra).response;
    t.equal(refused.statusCode, 400, field);
    t.match(refused.json(), { error: 'validation_error', field, message: /under oauth_profile fapi2/ }, field);
  }

  const secret = await tokenRequest(tg, { client_id: older.client_id, client_secret: older.client_secret, scope: 'sales' });
  t.equal(secret.statusCode, 401, 'a secret never authenticates');
  t.match(secret.json(), { error: 'auth_error', message: /only private_key_jwt/ });
  const introspect = await tg.gateway.publicApp.inject({
    method: 'POST',
    url: '/v1/oauth/introspect',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ client_id: older.client_id, client_secret: older.client_secret, token: 'x' }).toString(),
  });
  t.equal(introspect.statusCode, 401, 'not at introspection either');

  const form = () => ({
    client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
    client_assertion: assertion(client.client_id, privateKey),
    scope: 'sales',
  });
  const withoutProof = await tokenRequest(tg, form());
  t.equal(withoutProof.statusCode, 400);
  t.match(withoutProof.json(), { error: 'invalid_dpop_proof', message: /a DPoP proof is required/ });

  const dpopKey = generateKeyPairSync('ed25519').privateKey;
  for (const aud of [TOKEN_URL, [ISSUER]]) {
    const refused = await tokenRequest(
      tg,
      { ...form(), client_assertion: assertion(client.client_id, privateKey, aud) },
      { dpop: dpopProof(dpopKey, { method: 'POST', url: TOKEN_URL }) },
    );
    t.equal(refused.statusCode, 401, `aud ${JSON.stringify(aud)}: the issuer alone, as a string (FAPI 2.0)`);
  }
  const issued = await tokenRequest(tg, form(), { dpop: dpopProof(dpopKey, { method: 'POST', url: TOKEN_URL }) });
  t.equal(issued.statusCode, 200, issued.body);
  const body = issued.json<{ token_type: string; expires_in: number }>();
  t.equal(body.token_type, 'DPoP');
  t.equal(body.expires_in, 600, 'ten minutes');
});
