// Dashboard sessions through the admin listener (no browser): cookie attributes, CSRF on changes,
// expiry in the store, sessions ended by a rotated token or a removed user. Sign-in throttling:
// sign-in-throttle.test.ts.
import t from 'tap';
import { Redis } from 'ioredis';
import { hashPassword } from '../../gateway/dashboard/password-hash.js';
import { DASHBOARD_CSP } from '../../gateway/dashboard/security-headers.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { TEST_REDIS_URL } from '../helpers/redis.js';

interface SignedIn {
  cookie: string;
  setCookie: string;
  csrf: string;
}

async function signIn(tg: TestGateway, body: Record<string, string> = { token: tg.adminToken }): Promise<SignedIn> {
  const response = await tg.gateway.adminApp.inject({ method: 'POST', url: '/dashboard/api/sign-in', payload: body });
  if (response.statusCode !== 200) throw new Error(`sign-in failed: ${response.statusCode} ${response.body}`);
  const setCookie = String(response.headers['set-cookie']);
  return { cookie: setCookie.split(';')[0]!, setCookie, csrf: response.json().csrf_token };
}

function createClient(tg: TestGateway, headers: Record<string, string>) {
  return tg.gateway.adminApp.inject({ method: 'POST', url: '/admin/v1/clients', headers, payload: { name: 'dashboard client', scopes: ['sales'] } });
}

t.test('sign-in answers with the session and a cookie the browser keeps to itself', async (t) => {
  const tg = await startTestGateway(t, { config: { session_ttl_seconds: 600 } });
  const response = await tg.gateway.adminApp.inject({ method: 'POST', url: '/dashboard/api/sign-in', payload: { token: tg.adminToken } });
  t.equal(response.statusCode, 200);
  t.equal(response.headers['cache-control'], 'no-store');
  t.equal(response.headers['content-security-policy'], DASHBOARD_CSP);
  const body = response.json();
  t.same(Object.keys(body).sort(), ['csrf_token', 'expires_at', 'method', 'user']);
  t.match(body, { user: 'admin', method: 'token', csrf_token: /^[A-Za-z0-9_-]{43}$/ });
  t.match(String(response.headers['set-cookie']), /^gateway_session=[A-Za-z0-9_-]{43}; Max-Age=600; Path=\/; HttpOnly; SameSite=Strict$/);

  // The store holds the session under a hash of its id, with the TTL; never the cookie value.
  const cookieValue = String(response.headers['set-cookie']).split(';')[0]!.split('=')[1]!;
  const redis = new Redis(TEST_REDIS_URL);
  t.teardown(() => redis.disconnect());
  const keys = await redis.keys(`${tg.redisPrefix}session:*`);
  t.equal(keys.length, 1);
  t.notOk(keys[0]!.includes(cookieValue));
  const ttl = await redis.ttl(keys[0]!);
  t.ok(ttl > 590 && ttl <= 600, `TTL ${ttl}`);
  t.notOk((await redis.get(keys[0]!))!.includes(tg.adminToken), 'the admin token is not stored in the session');

  const session = await tg.gateway.adminApp.inject({ url: '/dashboard/api/session', headers: { cookie: `gateway_session=${cookieValue}` } });
  t.equal(session.statusCode, 200);
  t.same(session.json(), body);
  t.notMatch(tg.logs.text, new RegExp(`${tg.adminToken}|${cookieValue}|${body.csrf_token}`), 'no token, session id or CSRF token in the logs');
});

t.test('with cookie_secure the cookie is Secure and __Host- prefixed', async (t) => {
  const tg = await startTestGateway(t, { config: { cookie_secure: true } });
  const { setCookie, cookie } = await signIn(tg);
  t.match(setCookie, /^__Host-gateway_session=[A-Za-z0-9_-]{43}; Max-Age=28800; Path=\/; HttpOnly; Secure; SameSite=Strict$/);
  const list = await tg.gateway.adminApp.inject({ url: '/admin/v1/clients', headers: { cookie } });
  t.equal(list.statusCode, 200);
});

t.test('changes made with the cookie need the CSRF token; the admin token needs none', async (t) => {
  const tg = await startTestGateway(t);
  const { cookie, csrf } = await signIn(tg);

  const missing = await createClient(tg, { cookie });
  t.equal(missing.statusCode, 403);
  t.match(missing.json(), { error: 'csrf_failed', message: 'The CSRF token is missing or wrong.' });
  const wrong = await createClient(tg, { cookie, 'x-csrf-token': csrf.slice(0, -1) + (csrf.endsWith('A') ? 'B' : 'A') });
  t.equal(wrong.statusCode, 403);
  t.equal(wrong.json().error, 'csrf_failed');

  const made = await createClient(tg, { cookie, 'x-csrf-token': csrf });
  t.equal(made.statusCode, 201);
  const clientId = made.json().client_id;
  const deleteWithout = await tg.gateway.adminApp.inject({ method: 'DELETE', url: `/admin/v1/clients/${clientId}`, headers: { cookie } });
  t.equal(deleteWithout.statusCode, 403);
  t.equal(deleteWithout.json().error, 'csrf_failed');
  const stillThere = await tg.gateway.adminApp.inject({ url: `/admin/v1/clients/${clientId}`, headers: { cookie } });
  t.equal(stillThere.statusCode, 200, 'reads need no CSRF token, and the refused delete deleted nothing');

  const byToken = await createClient(tg, { authorization: `Bearer ${tg.adminToken}` });
  t.equal(byToken.statusCode, 201, 'the CLI and automation are unaffected');
  const badBearer = await createClient(tg, { authorization: 'Bearer wrong', cookie, 'x-csrf-token': csrf });
  t.equal(badBearer.statusCode, 401, 'a wrong Authorization header is not rescued by a cookie');
  t.equal(badBearer.json().error, 'admin_unauthorized');

  const forged = await tg.gateway.adminApp.inject({ url: '/admin/v1/clients', headers: { cookie: `gateway_session=${'A'.repeat(43)}` } });
  t.equal(forged.statusCode, 401);
  t.equal(forged.json().error, 'admin_unauthorized');

  const signOutWithout = await tg.gateway.adminApp.inject({ method: 'POST', url: '/dashboard/api/sign-out', headers: { cookie } });
  t.equal(signOutWithout.statusCode, 403, 'sign-out is a change too');
  const signOut = await tg.gateway.adminApp.inject({ method: 'POST', url: '/dashboard/api/sign-out', headers: { cookie, 'x-csrf-token': csrf } });
  t.equal(signOut.statusCode, 204);
  t.match(String(signOut.headers['set-cookie']), /^gateway_session=; Max-Age=0;/);
  const after = await tg.gateway.adminApp.inject({ url: '/admin/v1/clients', headers: { cookie } });
  t.equal(after.statusCode, 401);
});

t.test('pages: / and /dashboard need a session; sign-in is refused from another origin', async (t) => {
  const tg = await startTestGateway(t);
  const root = await tg.gateway.adminApp.inject({ url: '/' });
  t.equal(root.statusCode, 302);
  t.equal(root.headers.location, '/dashboard');
  const app = await tg.gateway.adminApp.inject({ url: '/dashboard' });
  t.equal(app.statusCode, 302);
  t.equal(app.headers.location, '/dashboard/sign-in');
  const { cookie } = await signIn(tg);
  const signedIn = await tg.gateway.adminApp.inject({ url: '/dashboard', headers: { cookie } });
  t.equal(signedIn.statusCode, 200);
  t.match(signedIn.headers['content-type'], /^text\/html/);
  t.equal(signedIn.headers['cache-control'], 'no-store');
  t.equal(signedIn.headers['x-frame-options'], 'DENY');
  const vocabulary = await tg.gateway.adminApp.inject({ url: '/dashboard/api/vocabulary' });
  t.equal(vocabulary.statusCode, 401);

  const crossSite = await tg.gateway.adminApp.inject({
    method: 'POST',
    url: '/dashboard/api/sign-in',
    headers: { origin: 'https://evil.example' },
    payload: { token: tg.adminToken },
  });
  t.equal(crossSite.statusCode, 403);
  t.equal(crossSite.json().error, 'csrf_failed');
  t.equal(crossSite.headers['set-cookie'], undefined);
  const form = await tg.gateway.adminApp.inject({
    method: 'POST',
    url: '/dashboard/api/sign-in',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: `token=${tg.adminToken}`,
  });
  t.equal(form.statusCode, 400, 'a plain HTML form post cannot sign in (only JSON is parsed)');
  t.equal(form.json().error, 'bad_request');
  t.equal(form.headers['set-cookie'], undefined);
  const unknown = await tg.gateway.adminApp.inject({ method: 'POST', url: '/dashboard/api/sign-in', payload: { token: tg.adminToken, remember: true } });
  t.equal(unknown.statusCode, 400);
  t.match(unknown.json(), { error: 'validation_error', field: 'remember' });
});

t.test('a password user signs in; a wrong password and an unknown user fail alike', async (t) => {
  const hash = await hashPassword('a long dashboard password');
  const tg = await startTestGateway(t, { config: { dashboard_users: [`carol:${hash}`] } });
  const ok = await tg.gateway.adminApp.inject({
    method: 'POST',
    url: '/dashboard/api/sign-in',
    payload: { username: 'carol', password: 'a long dashboard password' },
  });
  t.equal(ok.statusCode, 200);
  t.match(ok.json(), { user: 'carol', method: 'password' });
  const wrong = await tg.gateway.adminApp.inject({ method: 'POST', url: '/dashboard/api/sign-in', payload: { username: 'carol', password: 'not it' } });
  const unknown = await tg.gateway.adminApp.inject({ method: 'POST', url: '/dashboard/api/sign-in', payload: { username: 'mallory', password: 'not it' } });
  t.equal(wrong.statusCode, 401);
  t.equal(unknown.statusCode, 401);
  t.equal(wrong.json().message, unknown.json().message, 'no hint whether the user exists');
  t.equal(unknown.json().field, 'password');
});

t.test('a rotated admin token or a removed user ends their sessions on every instance', async (t) => {
  const hash = await hashPassword('a long dashboard password');
  const first = await startTestGateway(t, { config: { dashboard_users: [`carol:${hash}`] } });
  const byToken = await signIn(first);
  const byPassword = await signIn(first, { username: 'carol', password: 'a long dashboard password' });
  // A second instance on the same Redis, same users and token: the sessions are shared.
  const same = await startTestGateway(t, { redisPrefix: first.redisPrefix, config: { admin_token: first.adminToken, dashboard_users: [`carol:${hash}`] } });
  t.equal((await same.gateway.adminApp.inject({ url: '/admin/v1/clients', headers: { cookie: byToken.cookie } })).statusCode, 200);
  t.equal((await same.gateway.adminApp.inject({ url: '/admin/v1/clients', headers: { cookie: byPassword.cookie } })).statusCode, 200);
  // Restarted with a new token and without carol: neither session opens anything.
  const rotated = await startTestGateway(t, { redisPrefix: first.redisPrefix });
  for (const session of [byToken, byPassword]) {
    const response = await rotated.gateway.adminApp.inject({ url: '/admin/v1/clients', headers: { cookie: session.cookie } });
    t.equal(response.statusCode, 401);
    t.equal(response.json().error, 'admin_unauthorized');
  }
});
