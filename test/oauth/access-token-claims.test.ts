// The issued JWT follows RFC 9068: header typ at+jwt with the kid of a published key; claims iss,
// sub, aud, client_id, scope, iat, exp, jti.
import t from 'tap';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { startTestGateway } from '../helpers/gateway.js';
import { accessToken, createClient } from '../helpers/oauth.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

t.test('RFC 9068 header and claims', async (t) => {
  const tg = await startTestGateway(t);
  const client = await createClient(tg, ['sales', 'stats'], { account_id: 'acct-3' });
  const token = await accessToken(tg, client);
  const header = decodeProtectedHeader(token);
  const jwks = (await tg.gateway.publicApp.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json<{ keys: Array<Record<string, string>> }>();
  t.same(header, { alg: 'EdDSA', kid: jwks.keys[0]!.kid, typ: 'at+jwt' });
  const claims = decodeJwt(token);
  t.same(Object.keys(claims).sort(), ['account_id', 'aud', 'client_id', 'exp', 'iat', 'iss', 'jti', 'scope', 'sub']);
  t.equal(claims.iss, 'http://gateway.test');
  t.equal(claims.aud, 'http://gateway.test');
  t.equal(claims.sub, client.client_id);
  t.equal(claims.client_id, client.client_id);
  t.equal(claims.scope, 'sales stats');
  t.equal(claims.account_id, 'acct-3');
  t.match(claims.jti, UUID);
  t.equal(claims.exp! - claims.iat!, 86400);
  t.ok(Math.abs(claims.iat! - Date.now() / 1000) < 600, 'iat is the issuing time');
  const second = decodeJwt(await accessToken(tg, client));
  t.not(second.jti, claims.jti, 'every token has its own jti');
});

t.test('configured audience and lifetime; no account_id claim without one', async (t) => {
  const tg = await startTestGateway(t, { config: { audience: 'https://api.example.com', token_ttl_seconds: 600 } });
  const client = await createClient(tg, ['sales']);
  const response = await tg.gateway.publicApp.inject({
    method: 'POST',
    url: '/v1/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ client_id: client.client_id, client_secret: client.client_secret }).toString(),
  });
  t.equal(response.json().expires_in, 600);
  const claims = decodeJwt(response.json().access_token as string);
  t.equal(claims.aud, 'https://api.example.com');
  t.equal(claims.exp! - claims.iat!, 600);
  t.equal(claims.account_id, undefined);
});

t.test('discovery documents', async (t) => {
  const tg = await startTestGateway(t);
  const metadata = await tg.gateway.publicApp.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
  t.equal(metadata.statusCode, 200);
  t.match(metadata.json(), {
    issuer: 'http://gateway.test',
    token_endpoint: 'http://gateway.test/v1/oauth/token',
    jwks_uri: 'http://gateway.test/.well-known/jwks.json',
    revocation_endpoint: 'http://gateway.test/v1/oauth/revoke',
    introspection_endpoint: 'http://gateway.test/v1/oauth/introspect',
    grant_types_supported: ['client_credentials'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'private_key_jwt'],
    token_endpoint_auth_signing_alg_values_supported: ['EdDSA', 'Ed25519', 'ES256', 'PS256'],
  });
  const jwks = await tg.gateway.publicApp.inject({ method: 'GET', url: '/.well-known/jwks.json' });
  const keys = jwks.json<{ keys: Array<Record<string, unknown>> }>().keys;
  t.equal(keys.length, 1);
  t.match(keys[0], { kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
  t.equal(keys[0]!.d, undefined, 'no private part is published');
});
