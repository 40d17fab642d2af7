// A JSON body nested thousands of levels deep (a few kilobytes: under the body limit) is the
// catalog's 400 validation_error naming the field it is in, on every admin route that reads a
// body, never a 500 from a stack overflow; the gateway goes on answering as before.
import { generateKeyPairSync } from 'node:crypto';
import t, { type Test } from 'tap';
import { sshPublicKeyLine } from '../../gateway/signing/index.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { createClient } from '../helpers/oauth.js';
import { adminInject, createServiceAccount } from '../helpers/signing.js';
import { deepJson, NESTINGS, tooDeepMessage } from '../http/deep-json.js';

const SCOPES = 'stats, products, events, sales, sales_refund, financial, affiliates, webhooks';

interface BodyRoute {
  name: string;
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  /** The body around the deep value, and the field the answer names. */
  body(deep: string): string;
  field: string;
}

async function bodyRoutes(tg: TestGateway): Promise<BodyRoute[]> {
  const client = await createClient(tg, ['sales']);
  const { account } = await createServiceAccount(tg);
  return [
    { name: 'create client', method: 'POST', url: '/admin/v1/clients', body: (deep) => `{"name":"x","scopes":${deep}}`, field: 'scopes' },
    {
      name: 'create service account',
      method: 'POST',
      url: '/admin/v1/service-accounts',
      body: (deep) => `{"description":"x","public_key":${deep},"permissions":["view_balance"]}`,
      field: 'public_key',
    },
    {
      name: 'create service account (permissions)',
      method: 'POST',
      url: '/admin/v1/service-accounts',
      body: (deep) => `{"description":"x","public_key":"k","permissions":${deep}}`,
      field: 'permissions',
    },
    {
      name: 'roll client secret',
      method: 'POST',
      url: `/admin/v1/clients/${client.client_id}/secret`,
      body: (deep) => `{"grace_seconds":${deep}}`,
      field: 'grace_seconds',
    },
    {
      name: 'add service account key',
      method: 'POST',
      url: `/admin/v1/service-accounts/${account.id}/keys`,
      body: (deep) => `{"public_key":${deep}}`,
      field: 'public_key',
    },
    // A DELETE (no body schema) still parses a JSON body it is sent.
    { name: 'delete client', method: 'DELETE', url: `/admin/v1/clients/${client.client_id}`, body: (deep) => `{"reason":${deep}}`, field: 'reason' },
  ];
}

async function refusedAsTooDeep(t: Test, tg: TestGateway, route: BodyRoute, payload: string, label: string): Promise<void> {
  const response = await adminInject(tg, { method: route.method, url: route.url, payload, headers: { 'content-type': 'application/json' } });
  t.equal(response.statusCode, 400, `${label}: ${response.body.slice(0, 200)}`);
  const body = response.json();
  // The shape of every other validation error: error, message, request_id, field; nothing else.
  t.same(body, { error: 'validation_error', message: tooDeepMessage(route.field), request_id: body.request_id, field: route.field }, label);
  t.match(body.request_id, /^[0-9a-f-]{36}$/, label);
}

/** Still answering: health, a valid create, and the credentials the refused requests named are untouched. */
async function stillHealthy(t: Test, tg: TestGateway): Promise<void> {
  t.equal((await tg.gateway.adminApp.inject({ method: 'GET', url: '/healthz' })).statusCode, 200, 'healthz');
  const created = await adminInject(tg, { method: 'POST', url: '/admin/v1/clients', payload: { name: 'after', scopes: ['sales'] } });
  t.equal(created.statusCode, 201, `a valid create still works: ${created.body}`);
  t.notMatch(tg.logs.text, /"level":50/, 'no request failed with an internal error');
}

t.test('5,000 levels of lists, objects or both: 400 validation_error naming the field, on every admin body route', async (t) => {
  const tg = await startTestGateway(t, { store: 'embedded' });
  const routes = await bodyRoutes(tg);
  for (const nesting of NESTINGS) {
    const deep = deepJson(5000, nesting);
    t.ok(deep.length < 65_536, `${nesting}: ${deep.length} bytes, under the admin body limit`);
    for (const route of routes) await refusedAsTooDeep(t, tg, route, route.body(deep), `${route.name}, 5000 ${nesting}`);
  }
  const clients = (await adminInject(tg, { method: 'GET', url: '/admin/v1/clients' })).json().clients;
  t.equal(clients.length, 1, 'nothing was created or deleted');
  await stillHealthy(t, tg);
});

t.test('every admin route that takes a body, as the API document lists them, refuses a deep one', async (t) => {
  const tg = await startTestGateway(t, { store: 'embedded' });
  const document = (await adminInject(tg, { method: 'GET', url: '/admin/openapi.json' })).json<{ paths: Record<string, Record<string, unknown>> }>();
  const withBodies = Object.entries(document.paths)
    .filter(([path]) => path.startsWith('/admin/'))
    .flatMap(([path, operations]) =>
      Object.keys(operations)
        .filter((method) => ['post', 'put', 'patch', 'delete'].includes(method))
        .map((method) => ({ method: method.toUpperCase() as BodyRoute['method'], url: path.replace(/\{[^}]+\}/g, 'no-such-id') })),
    );
  t.ok(withBodies.length >= 12, `${withBodies.length} routes`);
  t.ok(
    withBodies.some((route) => route.method === 'PATCH'),
    'the PATCH routes among them',
  );
  const deep = deepJson(5000, 'lists');
  for (const route of withBodies)
    await refusedAsTooDeep(t, tg, { name: '', field: 'x', body: () => '', ...route }, `{"x":${deep}}`, `${route.method} ${route.url}`);
  await stillHealthy(t, tg);
});

t.test('100,000 levels under a large body limit: the same 400, in bounded time', async (t) => {
  const tg = await startTestGateway(t, { store: 'embedded', config: { admin_max_body_bytes: 1_048_576 } });
  const routes = await bodyRoutes(tg);
  for (const nesting of NESTINGS) {
    const deep = deepJson(100_000, nesting);
    for (const route of routes) {
      const started = performance.now();
      await refusedAsTooDeep(t, tg, route, route.body(deep), `${route.name}, 100000 ${nesting}`);
      const elapsed = performance.now() - started;
      // The scan stops at the 33rd level; this bound only catches a parse or a walk of the whole value.
      t.ok(elapsed < 2000, `${route.name}, 100000 ${nesting}: answered in ${Math.round(elapsed)} ms`);
    }
  }
  await stillHealthy(t, tg);
});

t.test('32 levels are read and checked as usual; 33 are refused as too deep', async (t) => {
  const tg = await startTestGateway(t, { store: 'embedded' });
  const post = (scopes: string) =>
    adminInject(tg, { method: 'POST', url: '/admin/v1/clients', payload: `{"name":"x","scopes":${scopes}}`, headers: { 'content-type': 'application/json' } });
  // The body is level 1, scopes level 2, its entry 30 lists deep: 32 in all, shown cut short.
  const atLimit = await post(deepJson(31, 'lists'));
  t.equal(atLimit.statusCode, 400);
  t.equal(atLimit.json().message, `scopes: ${'['.repeat(30)}1${']'.repeat(26)}... is not one of: ${SCOPES}`, 'the schema answers');
  const objects = await post(deepJson(31, 'objects'));
  t.equal(objects.json().message, `scopes: must be a non-empty list drawn from: ${SCOPES}`, 'the schema answers');
  for (const nesting of NESTINGS) {
    const over = await post(deepJson(32, nesting));
    t.equal(over.statusCode, 400);
    t.equal(over.json().message, tooDeepMessage('scopes'), `33 levels of ${nesting}`);
  }
  const key = sshPublicKeyLine(generateKeyPairSync('ed25519').privateKey, 'k');
  const fine = await adminInject(tg, {
    method: 'POST',
    url: '/admin/v1/service-accounts',
    payload: { description: 'x', public_key: key, permissions: ['view_balance'], allowed_ips: ['10.0.0.1'] },
  });
  t.equal(fine.statusCode, 201, 'an ordinary body is accepted');
});

t.test('the refused member is named as the schema errors name fields: decoded, cut short, the body for no name', async (t) => {
  const tg = await startTestGateway(t, { store: 'embedded' });
  const deep = deepJson(100, 'lists');
  const cases: Array<[string, string]> = [
    [`{"name":"x","a\\/b~c":${deep}}`, 'a/b~c'],
    [`{"name":"x","\\u0073copes":${deep}}`, 'scopes'],
    [`{"name":"x","${'n'.repeat(10_000)}":${deep}}`, `${'n'.repeat(57)}...`],
    [`{"name":"x","":${deep}}`, 'body'],
    [`{"name":"[[[[","scopes":"]]]]","x":{"y":${deep}}}`, 'x'],
    [deep, 'body'],
    [deepJson(100, 'objects'), 'a'],
  ];
  for (const [payload, field] of cases) {
    const response = await adminInject(tg, { method: 'POST', url: '/admin/v1/clients', payload, headers: { 'content-type': 'application/json' } });
    t.equal(response.statusCode, 400);
    t.same(response.json(), { error: 'validation_error', message: tooDeepMessage(field), request_id: response.json().request_id, field }, payload.slice(0, 40));
  }
});
