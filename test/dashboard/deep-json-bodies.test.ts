// A JSON body nested thousands of levels deep is the catalog's 400 validation_error naming its
// field on the dashboard's JSON routes too (sign-in reads a body before anyone is signed in), and
// is refused before any credential is compared or counted.
import t, { type Test } from 'tap';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { deepJson, NESTINGS, tooDeepMessage } from '../http/deep-json.js';

interface BodyRoute {
  url: string;
  body(deep: string): string;
  field: string;
}

const ROUTES: BodyRoute[] = [
  { url: '/dashboard/api/sign-in', body: (deep) => `{"token":${deep}}`, field: 'token' },
  { url: '/dashboard/api/sign-in', body: (deep) => `{"username":"ops","password":${deep}}`, field: 'password' },
  // Sign-out has no body schema; a JSON body it is sent is parsed all the same.
  { url: '/dashboard/api/sign-out', body: (deep) => `{"everywhere":${deep}}`, field: 'everywhere' },
];

async function refusedAsTooDeep(t: Test, tg: TestGateway, route: BodyRoute, payload: string, label: string): Promise<void> {
  const response = await tg.gateway.adminApp.inject({ method: 'POST', url: route.url, payload, headers: { 'content-type': 'application/json' } });
  t.equal(response.statusCode, 400, `${label}: ${response.body.slice(0, 200)}`);
  const body = response.json();
  t.same(body, { error: 'validation_error', message: tooDeepMessage(route.field), request_id: body.request_id, field: route.field }, label);
  t.equal(response.headers['set-cookie'], undefined, `${label}: no session, and no cookie cleared`);
}

async function stillSignsIn(t: Test, tg: TestGateway): Promise<void> {
  t.equal((await tg.gateway.adminApp.inject({ method: 'GET', url: '/healthz' })).statusCode, 200, 'healthz');
  // The refused requests were not counted as failed sign-ins: the right token still signs in.
  const signedIn = await tg.gateway.adminApp.inject({ method: 'POST', url: '/dashboard/api/sign-in', payload: { token: tg.adminToken } });
  t.equal(signedIn.statusCode, 200, signedIn.body);
  t.notMatch(tg.logs.text, /"level":50/, 'no request failed with an internal error');
  t.notMatch(tg.logs.text, /sign_in_failed/, 'no sign-in was attempted');
}

t.test('5,000 levels of lists, objects or both: 400 validation_error naming the field', async (t) => {
  const tg = await startTestGateway(t, { store: 'embedded' });
  for (const nesting of NESTINGS) {
    const deep = deepJson(5000, nesting);
    for (const route of ROUTES) await refusedAsTooDeep(t, tg, route, route.body(deep), `${route.url} ${route.field}, 5000 ${nesting}`);
  }
  // A whole body of nested lists has no field to name: the body is named.
  await refusedAsTooDeep(t, tg, { url: '/dashboard/api/sign-in', body: (deep) => deep, field: 'body' }, deepJson(5000, 'lists'), 'sign-in, the whole body');
  await stillSignsIn(t, tg);
});

t.test('100,000 levels under a large body limit: the same 400, in bounded time', async (t) => {
  const tg = await startTestGateway(t, { store: 'embedded', config: { admin_max_body_bytes: 1_048_576 } });
  for (const nesting of NESTINGS) {
    const deep = deepJson(100_000, nesting);
    for (const route of ROUTES) {
      const started = performance.now();
      await refusedAsTooDeep(t, tg, route, route.body(deep), `${route.url} ${route.field}, 100000 ${nesting}`);
      const elapsed = performance.now() - started;
      t.ok(elapsed < 2000, `${route.url}, 100000 ${nesting}: answered in ${Math.round(elapsed)} ms`);
    }
  }
  await stillSignsIn(t, tg);
});
