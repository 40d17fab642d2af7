// POST /v1/oauth/token as the README documents it: the client credentials grant, HTTP Basic or form
// authentication, scope narrowing, and RFC 6749 error bodies with error_description.
import t, { type Test } from 'tap';
import { decodeJwt } from 'jose';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { createClient, tokenRequest } from '../helpers/oauth.js';

function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
}

function assertOAuthError(t: Test, response: Awaited<ReturnType<typeof tokenRequest>>, status: number, error: string, message?: string | RegExp): void {
  t.equal(response.statusCode, status, `${error}: ${response.body}`);
  const body = response.json<Record<string, string>>();
  t.same(Object.keys(body).sort(), ['error', 'error_description', 'message', 'request_id'], `${error}: body fields`);
  t.equal(body.error, error);
  t.match(body.request_id, /^[0-9a-f]{8}-[0-9a-f-]{27}$/, 'request_id names the request, as in the logs');
  t.equal(body.error_description, body.message, 'error_description carries the message');
  if (message !== undefined) t.match(body.message, message);
  t.equal(response.headers['cache-control'], 'no-store');
  t.equal(response.headers.pragma, 'no-cache');
}

function upstreamsUntouched(t: Test, tg: TestGateway): void {
  t.same(tg.upstreams.public.received, [], 'the public upstream was not contacted');
  t.same(tg.upstreams.banking.received, [], 'the banking upstream was not contacted');
}

t.test('success with form fields', async (t) => {
  const tg = await startTestGateway(t);
  const client = await createClient(tg, ['sales', 'stats']);
  const response = await tokenRequest(tg, { client_id: client.client_id, client_secret: client.client_secret });
  t.equal(response.statusCode, 200, response.body);
  t.match(response.headers['content-type'], 'application/json');
  t.equal(response.headers['cache-control'], 'no-store');
  t.equal(response.headers.pragma, 'no-cache');
  const body = response.json<Record<string, unknown>>();
  t.same(Object.keys(body).sort(), ['access_token', 'expires_in', 'scope', 'token_type']);
  t.equal(body.token_type, 'Bearer');
  t.equal(body.expires_in, 86400, 'expires_in is a JSON number of seconds');
  t.equal(typeof body.expires_in, 'number');
  t.equal(body.scope, 'sales stats');
  t.match(body.access_token, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  upstreamsUntouched(t, tg);
});

t.test('grant_type omitted or client_credentials; a charset on the content type is fine', async (t) => {
  const tg = await startTestGateway(t);
  const client = await createClient(tg, ['sales']);
  const withGrant = await tokenRequest(tg, { grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret });
  t.equal(withGrant.statusCode, 200);
  const charset = await tokenRequest(
    tg,
    { client_id: client.client_id, client_secret: client.client_secret },
    { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
  );
  t.equal(charset.statusCode, 200);
});

t.test('HTTP Basic client authentication', async (t) => {
  const tg = await startTestGateway(t);
  const client = await createClient(tg, ['products']);
  const response = await tokenRequest(tg, { grant_type: 'client_credentials' }, { authorization: basic(client.client_id, client.client_secret) });
  t.equal(response.statusCode, 200, response.body);
  t.equal(response.json().scope, 'products');
  const withId = await tokenRequest(tg, { client_id: client.client_id }, { authorization: basic(client.client_id, client.client_secret) });
  t.equal(withId.statusCode, 200, 'client_id may repeat the Basic user name');
  const wrong = await tokenRequest(tg, {}, { authorization: basic(client.client_id, 'wrong-secret') });
  assertOAuthError(t, wrong, 401, 'auth_error', 'the client is invalid');
  t.equal(wrong.headers['www-authenticate'], 'Basic realm="gateway"');
  const mismatch = await tokenRequest(
    tg,
    { client_id: '00000000-0000-4000-8000-000000000000' },
    { authorization: basic(client.client_id, client.client_secret) },
  );
  assertOAuthError(t, mismatch, 400, 'invalid_request', 'differs from the Basic credentials');
  assertOAuthError(t, await tokenRequest(tg, {}, { authorization: 'Bearer abc' }), 400, 'invalid_request', 'Basic scheme');
  assertOAuthError(t, await tokenRequest(tg, {}, { authorization: `Basic ${Buffer.from('no-colon').toString('base64')}` }), 400, 'invalid_request');
  upstreamsUntouched(t, tg);
});

t.test('scope narrowing', async (t) => {
  const tg = await startTestGateway(t);
  const client = await createClient(tg, ['sales', 'stats', 'products']);
  const response = await tokenRequest(tg, { client_id: client.client_id, client_secret: client.client_secret, scope: 'stats  sales stats' });
  t.equal(response.statusCode, 200);
  t.equal(response.json().scope, 'stats sales');
  t.equal(decodeJwt(response.json().access_token).scope, 'stats sales', 'the token carries only the granted scopes');
  const token = response.json().access_token as string;
  const products = await tg.gateway.publicApp.inject({ method: 'GET', url: '/v1/products', headers: { authorization: `Bearer ${token}` } });
  t.equal(products.statusCode, 403, 'a scope left out is not usable');
  const stats = await tg.gateway.publicApp.inject({ method: 'GET', url: '/v1/stats', headers: { authorization: `Bearer ${token}` } });
  t.equal(stats.statusCode, 200);
});

t.test('invalid client: unknown client or wrong secret', async (t) => {
  const tg = await startTestGateway(t);
  const client = await createClient(tg, ['sales']);
  const message = 'Client authentication failed: the client is invalid.';
  assertOAuthError(t, await tokenRequest(tg, { client_id: client.client_id, client_secret: 'not-the-secret' }), 401, 'auth_error', message);
  assertOAuthError(
    t,
    await tokenRequest(tg, { client_id: '2f1c1b7e-1111-4c1e-9c1e-1c1e1c1e1c1e', client_secret: client.client_secret }),
    401,
    'auth_error',
    message,
  );
  assertOAuthError(t, await tokenRequest(tg, { client_id: 'not-a-uuid', client_secret: 'x' }), 401, 'auth_error', message);
  assertOAuthError(t, await tokenRequest(tg, { client_id: client.client_id, client_secret: `${client.client_secret}x` }), 401, 'auth_error', message);
  const exact = await tokenRequest(tg, { client_id: client.client_id, client_secret: 'nope' });
  t.same(exact.json(), { error: 'auth_error', message, error_description: message, request_id: exact.json().request_id });
  t.equal(exact.headers['www-authenticate'], undefined, 'form authentication gets no Basic challenge');
  upstreamsUntouched(t, tg);
});

t.test('malformed requests: 400 with RFC 6749 codes', async (t) => {
  const tg = await startTestGateway(t);
  const client = await createClient(tg, ['sales']);
  const id = client.client_id;
  const secret = client.client_secret;
  assertOAuthError(t, await tokenRequest(tg, { client_id: id }), 400, 'invalid_request', 'client_secret is required');
  assertOAuthError(t, await tokenRequest(tg, { client_secret: secret }), 400, 'invalid_request', 'client_id is required');
  assertOAuthError(t, await tokenRequest(tg, {}), 400, 'invalid_request', 'client_id and client_secret are required');
  assertOAuthError(t, await tokenRequest(tg, { grant_type: 'password', client_id: id, client_secret: secret }), 400, 'unsupported_grant_type', '"password"');
  assertOAuthError(t, await tokenRequest(tg, { grant_type: 'authorization_code', client_id: id, client_secret: secret }), 400, 'unsupported_grant_type');
  assertOAuthError(t, await tokenRequest(tg, { client_id: id, client_secret: secret, scope: 'financial' }), 400, 'invalid_scope', 'financial');
  assertOAuthError(t, await tokenRequest(tg, { client_id: id, client_secret: secret, scope: 'sales admin' }), 400, 'invalid_scope', 'admin');
  assertOAuthError(t, await tokenRequest(tg, { client_id: id, client_secret: secret, scope: ' ' }), 400, 'invalid_scope');
  assertOAuthError(
    t,
    await tokenRequest(tg, { client_id: id, client_secret: secret }, { authorization: basic(id, secret) }),
    400,
    'invalid_request',
    'not both',
  );
  const repeated = await tg.gateway.publicApp.inject({
    method: 'POST',
    url: '/v1/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: `client_id=${id}&client_secret=${secret}&client_secret=${secret}`,
  });
  assertOAuthError(t, repeated, 400, 'invalid_request', 'client_secret is repeated');
  const repeatedScope = await tg.gateway.publicApp.inject({
    method: 'POST',
    url: '/v1/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: `client_id=${id}&client_secret=${secret}&scope=sales&scope=sales`,
  });
  assertOAuthError(t, repeatedScope, 400, 'invalid_request', 'scope is repeated');
  upstreamsUntouched(t, tg);
});

t.test('wrong content type', async (t) => {
  const tg = await startTestGateway(t);
  const client = await createClient(tg, ['sales']);
  const fields = { client_id: client.client_id, client_secret: client.client_secret };
  const json = await tg.gateway.publicApp.inject({
    method: 'POST',
    url: '/v1/oauth/token',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify(fields),
  });
  assertOAuthError(t, json, 400, 'invalid_request', 'application/x-www-form-urlencoded');
  const text = await tg.gateway.publicApp.inject({
    method: 'POST',
    url: '/v1/oauth/token',
    headers: { 'content-type': 'text/plain' },
    payload: new URLSearchParams(fields).toString(),
  });
  assertOAuthError(t, text, 400, 'invalid_request', 'application/x-www-form-urlencoded');
  const none = await tg.gateway.publicApp.inject({ method: 'POST', url: '/v1/oauth/token' });
  assertOAuthError(t, none, 400, 'invalid_request', 'application/x-www-form-urlencoded');
  const badJson = await tg.gateway.publicApp.inject({
    method: 'POST',
    url: '/v1/oauth/token',
    headers: { 'content-type': 'application/json' },
    payload: '{"client_id":',
  });
  assertOAuthError(t, badJson, 400, 'invalid_request');
  const get = await tg.gateway.publicApp.inject({ method: 'GET', url: `/v1/oauth/token?client_id=${client.client_id}&client_secret=${client.client_secret}` });
  t.equal(get.statusCode, 404, 'credentials in a GET query are never accepted');
  upstreamsUntouched(t, tg);
});
