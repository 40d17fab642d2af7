// Admin API for OAuth clients: create (secret shown once), list, show, delete, last use; validation
// errors name the field; nothing is half-written.
import t from 'tap';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { accessToken, createClient, tokenRequest } from '../helpers/oauth.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function admin(tg: TestGateway, method: string, url: string, payload?: unknown) {
  return tg.gateway.adminApp.inject({
    method: method as 'GET',
    url,
    headers: { authorization: `Bearer ${tg.adminToken}`, ...(payload !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(payload !== undefined ? { payload: typeof payload === 'string' ? payload : JSON.stringify(payload) } : {}),
  });
}

t.test('create: 201 with the secret, once', async (t) => {
  const tg = await startTestGateway(t);
  const response = await admin(tg, 'POST', '/admin/v1/clients', { name: '  Reports  ', scopes: ['sales', 'stats', 'sales'], account_id: 'acct-1' });
  t.equal(response.statusCode, 201, response.body);
  t.equal(response.headers['cache-control'], 'no-store');
  const created = response.json<Record<string, unknown>>();
  t.same(Object.keys(created).sort(), [
    'account_id',
    'client_id',
    'client_secret',
    'created_at',
    'dpop_bound_access_tokens',
    'jwks',
    'name',
    'resource_server',
    'scopes',
    'token_endpoint_auth_method',
  ]);
  t.match(created.client_id, UUID);
  t.equal(created.name, 'Reports');
  t.same(created.scopes, ['sales', 'stats']);
  t.equal(created.account_id, 'acct-1');
  t.equal(created.resource_server, false, 'not a resource server by default');
  t.equal(created.dpop_bound_access_tokens, false, 'a DPoP proof optional by default');
  t.ok(Buffer.from(created.client_secret as string, 'base64url').length >= 32, 'the secret carries at least 256 bits');
  t.ok(!Number.isNaN(Date.parse(created.created_at as string)));

  const expected = {
    client_id: created.client_id,
    name: 'Reports',
    scopes: ['sales', 'stats'],
    account_id: 'acct-1',
    resource_server: false,
    token_endpoint_auth_method: 'client_secret_basic',
    jwks: null,
    dpop_bound_access_tokens: false,
    created_at: created.created_at,
    last_used_at: null,
  };
  const list = await admin(tg, 'GET', '/admin/v1/clients');
  t.equal(list.statusCode, 200);
  t.same(list.json(), { clients: [expected], next_cursor: null }, 'the list never shows the secret');
  const show = await admin(tg, 'GET', `/admin/v1/clients/${String(created.client_id)}`);
  t.equal(show.statusCode, 200);
  t.same(show.json(), expected, 'show never shows the secret');
  t.notMatch(list.body + show.body, created.client_secret);
  // The method's name (RFC 7591) says "secret"; nothing else may.
  t.notMatch((list.body + show.body).replaceAll('"token_endpoint_auth_method":"client_secret_basic"', ''), /secret|hash/i);

  const bare = await admin(tg, 'POST', '/admin/v1/clients', { name: 'bare', scopes: ['webhooks'] });
  t.equal(bare.json().account_id, null);
  t.equal((await admin(tg, 'GET', '/admin/v1/clients')).json().clients.length, 2);

  const server = await admin(tg, 'POST', '/admin/v1/clients', { name: 'orders API', scopes: ['sales'], resource_server: true });
  t.equal(server.statusCode, 201, server.body);
  t.equal(server.json().resource_server, true);
  t.equal((await admin(tg, 'GET', `/admin/v1/clients/${server.json().client_id}`)).json().resource_server, true, 'show');
  const listed = (await admin(tg, 'GET', '/admin/v1/clients')).json().clients as Array<{ name: string; resource_server: boolean }>;
  t.same(
    listed.map((c) => [c.name, c.resource_server]).sort(),
    [
      ['Reports', false],
      ['bare', false],
      ['orders API', true],
    ],
    'list',
  );
  const explicit = await admin(tg, 'POST', '/admin/v1/clients', { name: 'plain', scopes: ['sales'], resource_server: false });
  t.equal(explicit.json().resource_server, false);
});

t.test('validation errors name the field; nothing is written', async (t) => {
  const tg = await startTestGateway(t);
  const cases: Array<[unknown, string, RegExp]> = [
    [{ scopes: ['sales'] }, 'name', /^name: is required/],
    [{ name: '', scopes: ['sales'] }, 'name', /^name: is required/],
    [{ name: '   ', scopes: ['sales'] }, 'name', /^name:/],
    [{ name: 42, scopes: ['sales'] }, 'name', /^name:/],
    [{ name: 'x'.repeat(201), scopes: ['sales'] }, 'name', /at most 200 characters/],
    [{ name: 'a\u0000b', scopes: ['sales'] }, 'name', /control characters/],
    [{ name: 'x' }, 'scopes', /^scopes: must be a non-empty list/],
    [{ name: 'x', scopes: [] }, 'scopes', /^scopes: must be a non-empty list/],
    [{ name: 'x', scopes: 'sales' }, 'scopes', /^scopes:/],
    [{ name: 'x', scopes: ['sales', 'admin'] }, 'scopes', /"admin" is not one of/],
    [{ name: 'x', scopes: [1] }, 'scopes', /^scopes:/],
    [{ name: 'x', scopes: ['sales'], account_id: 5 }, 'account_id', /^account_id:/],
    [{ name: 'x', scopes: ['sales'], account_id: '' }, 'account_id', /^account_id:/],
    [{ name: 'x', scopes: ['sales'], resource_server: 'true' }, 'resource_server', /^resource_server: must be true or false$/],
    [{ name: 'x', scopes: ['sales'], resource_server: 1 }, 'resource_server', /^resource_server: must be true or false$/],
    [{ name: 'x', scopes: ['sales'], resource_server: null }, 'resource_server', /^resource_server: must be true or false$/],
    [{ name: 'x', scopes: ['sales'], client_secret: 'mine' }, 'client_secret', /is not a known field/],
    [{ name: 'x', scopes: ['sales'], client_id: '00000000-0000-4000-8000-000000000000' }, 'client_id', /is not a known field/],
    [['name', 'x'], 'body', /must be a JSON object/],
    ['"text"', 'body', /must be a JSON object/],
  ];
  for (const [payload, field, message] of cases) {
    const response = await admin(tg, 'POST', '/admin/v1/clients', payload);
    t.equal(response.statusCode, 400, `${JSON.stringify(payload)}: ${response.body}`);
    const body = response.json<Record<string, string>>();
    t.same(Object.keys(body).sort(), ['error', 'field', 'message', 'request_id']);
    t.equal(body.error, 'validation_error');
    t.equal(body.field, field, `${JSON.stringify(payload)} names ${field}`);
    t.match(body.message, message);
  }
  const noBody = await tg.gateway.adminApp.inject({ method: 'POST', url: '/admin/v1/clients', headers: { authorization: `Bearer ${tg.adminToken}` } });
  t.equal(noBody.statusCode, 400);
  t.equal(noBody.json().field, 'body');
  const badJson = await admin(tg, 'POST', '/admin/v1/clients', '{"name":');
  t.equal(badJson.statusCode, 400);
  t.same((await admin(tg, 'GET', '/admin/v1/clients')).json(), { clients: [], next_cursor: null }, 'nothing was written');
});

t.test('show and delete; unknown ids get 404 not_found', async (t) => {
  const tg = await startTestGateway(t);
  const created = (await admin(tg, 'POST', '/admin/v1/clients', { name: 'gone soon', scopes: ['events'] })).json<{ client_id: string }>();
  const kept = (await admin(tg, 'POST', '/admin/v1/clients', { name: 'kept', scopes: ['events'] })).json<{ client_id: string }>();
  const deleted = await admin(tg, 'DELETE', `/admin/v1/clients/${created.client_id}`);
  t.equal(deleted.statusCode, 204);
  t.equal(deleted.body, '');
  for (const [method, url] of [
    ['GET', `/admin/v1/clients/${created.client_id}`],
    ['DELETE', `/admin/v1/clients/${created.client_id}`],
    ['GET', '/admin/v1/clients/not-a-uuid'],
  ] as const) {
    const response = await admin(tg, method, url);
    t.equal(response.statusCode, 404, `${method} ${url}`);
    t.same(response.json(), { error: 'not_found', message: 'No client with that client_id.', request_id: response.json().request_id });
  }
  t.same(
    (await admin(tg, 'GET', '/admin/v1/clients')).json().clients.map((c: { client_id: string }) => c.client_id),
    [kept.client_id],
  );
  const unknownPath = await admin(tg, 'GET', '/admin/v1/nothing');
  t.equal(unknownPath.statusCode, 404);
});

t.test('last use: a token issued or a request allowed, written in batches, shown and listed', async (t) => {
  const tg = await startTestGateway(t);
  const tokenUser = await createClient(tg, ['sales']);
  const bearerUser = await createClient(tg, ['sales']);
  const idle = await createClient(tg, ['sales']);
  const token = await accessToken(tg, bearerUser);
  const before = Date.now();
  t.equal((await admin(tg, 'GET', `/admin/v1/clients/${idle.client_id}`)).json().last_used_at, null, 'a new client: never');
  t.equal(
    (await tokenRequest(tg, { grant_type: 'client_credentials', client_id: tokenUser.client_id, client_secret: tokenUser.client_secret })).statusCode,
    200,
  );
  const sales = await tg.gateway.publicApp.inject({ method: 'GET', url: '/v1/sales/1', headers: { authorization: `Bearer ${token}` } });
  t.equal(sales.statusCode, 200);
  t.equal((await admin(tg, 'GET', `/admin/v1/clients/${tokenUser.client_id}`)).json().last_used_at, null, 'no write on the request path');
  // Written every few seconds (usage-recorder.test.ts) and when the gateway stops: stop it, and read
  // through a second instance on the same store.
  await tg.gateway.close();
  const other = await startTestGateway(t, { redisPrefix: tg.redisPrefix });
  const listed = new Map(
    (await admin(other, 'GET', '/admin/v1/clients'))
      .json<{ clients: Array<{ client_id: string; last_used_at: string | null }> }>()
      .clients.map((c) => [c.client_id, c.last_used_at]),
  );
  for (const [what, client] of [
    ['a token issued', tokenUser],
    ['a Bearer request allowed', bearerUser],
  ] as const) {
    const at = Date.parse(listed.get(client.client_id) ?? '');
    t.ok(at >= before - 1000 && at <= Date.now(), `${what}: listed with the time of its last use`);
    t.equal((await admin(other, 'GET', `/admin/v1/clients/${client.client_id}`)).json().last_used_at, listed.get(client.client_id), `${what}: shown too`);
  }
  t.equal(listed.get(idle.client_id), null, 'an unused client: null');
});
