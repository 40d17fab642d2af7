// RFC 7009 revocation and RFC 7662 introspection, both with client authentication.
import t from 'tap';
import { decodeJwt } from 'jose';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { accessToken, createClient, type CreatedClient } from '../helpers/oauth.js';

function form(tg: TestGateway, url: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return tg.gateway.publicApp.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams(fields).toString(),
  });
}

const auth = (c: CreatedClient) => ({ client_id: c.client_id, client_secret: c.client_secret });

t.test('revocation: the token fails at once; revoking again or an unknown token is 200', async (t) => {
  const tg = await startTestGateway(t);
  const client = await createClient(tg, ['sales']);
  const token = await accessToken(tg, client);
  const other = await accessToken(tg, client);
  const get = (tok: string) => tg.gateway.publicApp.inject({ method: 'GET', url: '/v1/sales', headers: { authorization: `Bearer ${tok}` } });
  t.equal((await get(token)).statusCode, 200);

  const revoked = await form(tg, '/v1/oauth/revoke', { ...auth(client), token, token_type_hint: 'access_token' });
  t.equal(revoked.statusCode, 200);
  t.same(revoked.json(), {});
  t.equal(revoked.headers['cache-control'], 'no-store');
  const after = await get(token);
  t.equal(after.statusCode, 401);
  t.equal(after.json().error, 'invalid_token');
  t.equal(after.headers['www-authenticate'], 'Bearer realm="gateway", error="invalid_token", error_description="the token was revoked"');
  t.equal((await get(other)).statusCode, 200, "the client's other tokens still work");

  t.equal((await form(tg, '/v1/oauth/revoke', { ...auth(client), token })).statusCode, 200, 'revoking twice');
  t.equal((await form(tg, '/v1/oauth/revoke', { ...auth(client), token: 'not-a-token' })).statusCode, 200, 'an invalid token is not an error (RFC 7009 2.2)');
  const basic = `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;
  t.equal((await form(tg, '/v1/oauth/revoke', { token: other }, { authorization: basic })).statusCode, 200, 'Basic authentication');
  t.equal((await get(other)).statusCode, 401);
  t.equal(tg.upstreams.public.received.length, 2);
});

t.test("revocation needs client authentication and the client's own token", async (t) => {
  const tg = await startTestGateway(t);
  const owner = await createClient(tg, ['sales']);
  const intruder = await createClient(tg, ['sales']);
  const token = await accessToken(tg, owner);
  const noAuth = await form(tg, '/v1/oauth/revoke', { token });
  t.equal(noAuth.statusCode, 400);
  t.equal(noAuth.json().error, 'invalid_request');
  const badSecret = await form(tg, '/v1/oauth/revoke', { client_id: owner.client_id, client_secret: 'wrong', token });
  t.equal(badSecret.statusCode, 401);
  t.same(badSecret.json(), {
    error: 'auth_error',
    message: 'Client authentication failed: the client is invalid.',
    error_description: 'Client authentication failed: the client is invalid.',
    request_id: badSecret.json().request_id,
  });
  const foreign = await form(tg, '/v1/oauth/revoke', { ...auth(intruder), token });
  t.equal(foreign.statusCode, 400);
  t.same(foreign.json(), {
    error: 'invalid_request',
    message: 'The token was not issued to this client.',
    error_description: 'The token was not issued to this client.',
    request_id: foreign.json().request_id,
  });
  const missing = await form(tg, '/v1/oauth/revoke', auth(owner));
  t.equal(missing.json().error, 'invalid_request');
  const still = await tg.gateway.publicApp.inject({ method: 'GET', url: '/v1/sales', headers: { authorization: `Bearer ${token}` } });
  t.equal(still.statusCode, 200, 'nobody but the owner revoked it');
});

t.test('introspection by a resource server: active and inactive (RFC 7662)', async (t) => {
  const tg = await startTestGateway(t);
  const client = await createClient(tg, ['sales', 'stats'], { account_id: 'acct-5' });
  const caller = await createClient(tg, ['products'], { resource_server: true });
  t.equal(caller.resource_server, true);
  const token = await accessToken(tg, client, 'sales');
  const claims = decodeJwt(token);
  const active = await form(tg, '/v1/oauth/introspect', { ...auth(caller), token });
  t.equal(active.statusCode, 200);
  t.equal(active.headers['cache-control'], 'no-store');
  t.same(active.json(), {
    active: true,
    scope: 'sales',
    client_id: client.client_id,
    token_type: 'Bearer',
    exp: claims.exp,
    iat: claims.iat,
    sub: client.client_id,
    aud: 'http://gateway.test',
    iss: 'http://gateway.test',
    jti: claims.jti,
    account_id: 'acct-5',
  });
  t.same((await form(tg, '/v1/oauth/introspect', { ...auth(caller), token: 'garbage' })).json(), { active: false });
  await form(tg, '/v1/oauth/revoke', { ...auth(client), token });
  t.same((await form(tg, '/v1/oauth/introspect', { ...auth(caller), token })).json(), { active: false }, 'revoked');
  const second = await accessToken(tg, client);
  await tg.gateway.adminApp.inject({ method: 'DELETE', url: `/admin/v1/clients/${client.client_id}`, headers: { authorization: `Bearer ${tg.adminToken}` } });
  t.same((await form(tg, '/v1/oauth/introspect', { ...auth(caller), token: second })).json(), { active: false }, 'client deleted');
  const unauthenticated = await form(tg, '/v1/oauth/introspect', { token: second });
  t.equal(unauthenticated.statusCode, 400);
  const wrong = await form(tg, '/v1/oauth/introspect', { client_id: caller.client_id, client_secret: 'x', token: second });
  t.equal(wrong.statusCode, 401);
  t.equal(wrong.json().error, 'auth_error');
  t.same(tg.upstreams.public.received, []);
});

t.test('introspection is for resource servers only: any other client gets 403 introspection_not_allowed', async (t) => {
  const tg = await startTestGateway(t);
  const owner = await createClient(tg, ['sales']);
  const plain = await createClient(tg, ['products']);
  t.equal(plain.resource_server, false, 'a client is not a resource server unless created as one');
  const token = await accessToken(tg, owner);
  const message = 'Only clients marked as resource servers may introspect tokens.';
  const refusedFor = async (label: string, fields: Record<string, string>, headers: Record<string, string> = {}) => {
    const response = await form(tg, '/v1/oauth/introspect', fields, headers);
    t.equal(response.statusCode, 403, label);
    t.same(response.json(), { error: 'introspection_not_allowed', message, error_description: message, request_id: response.json().request_id }, label);
    t.equal(response.headers['cache-control'], 'no-store', label);
    t.equal(response.headers.pragma, 'no-cache', label);
  };
  await refusedFor('another client', { ...auth(plain), token });
  await refusedFor("the token's own client", { ...auth(owner), token });
  await refusedFor(
    'Basic authentication',
    { token },
    { authorization: `Basic ${Buffer.from(`${plain.client_id}:${plain.client_secret}`).toString('base64')}` },
  );
  await refusedFor('refused before the token is looked at', { ...auth(plain), token: 'garbage' });

  // A client stored before the attribute existed is upgraded by the store's layout migration:
  // test/store/redis-migration-gateway.test.ts checks it is refused too.

  const wrongSecret = await form(tg, '/v1/oauth/introspect', { client_id: plain.client_id, client_secret: 'x', token });
  t.equal(wrongSecret.statusCode, 401, 'authentication still comes first');
  t.equal((await form(tg, '/v1/oauth/revoke', { ...auth(owner), token })).statusCode, 200, 'revocation of its own tokens needs no attribute');
  t.same(tg.upstreams.public.received, []);
});
