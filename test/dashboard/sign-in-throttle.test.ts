// Dashboard sign-in failures are throttled like client authentication: password sign-ins per
// (username, address) pair, per address, and per username with a much higher ceiling; admin-token
// sign-ins per address only. 429 too_many_requests with Retry-After and no cookie. An attacker's
// failures cannot lock a user out; concurrent attempts cannot overshoot; successes do not count.
// Addresses are simulated with X-Forwarded-For through a trusted 127.0.0.1.
import t, { type Test } from 'tap';
import type { LightMyRequestResponse } from 'fastify';
import { hashPassword } from '../../gateway/dashboard/password-hash.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { SMALL_THROTTLE } from '../helpers/throttle-settings.js';

const PASSWORD = 'a long dashboard password';
// A cheap cost keeps 30 concurrent checks fast; the throttle does not depend on the cost.
const USERS = [`carol:${await hashPassword(PASSWORD, { N: 1024, r: 8, p: 1 })}`, `dave:${await hashPassword(PASSWORD, { N: 1024, r: 8, p: 1 })}`];
const PROXIED = { trusted_proxies: ['127.0.0.1'], dashboard_users: USERS };
const SMALL = { ...PROXIED, ...SMALL_THROTTLE };
const FAILED = 'Sign-in failed: the admin token, or the username and password, are wrong.';

function signIn(tg: TestGateway, payload: Record<string, string>, address: string) {
  return tg.gateway.adminApp.inject({ method: 'POST', url: '/dashboard/api/sign-in', headers: { 'x-forwarded-for': address }, payload });
}

function assertFailed(t: Test, response: LightMyRequestResponse, field: 'password' | 'token' = 'password', note = 'wrong: 401'): void {
  t.equal(response.statusCode, 401, note);
  const body = response.json();
  t.same(body, { error: 'admin_unauthorized', message: FAILED, request_id: body.request_id, field });
  t.match(body.request_id, /^[0-9a-f-]{36}$/);
  t.equal(response.headers['set-cookie'], undefined);
}

function assertThrottled(t: Test, response: LightMyRequestResponse, windowSeconds: number, note = 'throttled: 429'): void {
  t.equal(response.statusCode, 429, note);
  const retryAfter = Number(response.headers['retry-after']);
  t.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= windowSeconds, `Retry-After ${response.headers['retry-after']}`);
  const body = response.json();
  t.same(body, { error: 'too_many_requests', message: `Too many failed sign-ins; retry in ${retryAfter} seconds.`, request_id: body.request_id });
  t.equal(response.headers['set-cookie'], undefined, 'no session');
}

function assertSignedIn(t: Test, response: LightMyRequestResponse, user: string, note: string): void {
  t.equal(response.statusCode, 200, note);
  t.match(response.json(), { user, method: user === 'admin' ? 'token' : 'password' });
  t.match(String(response.headers['set-cookie']), /^gateway_session=/);
}

t.test("an attacker's failures for a username do not lock out the user", async (t) => {
  const tg = await startTestGateway(t, { config: PROXIED });
  const attacker = '203.0.113.66';
  for (let i = 0; i < 10; i++) assertFailed(t, await signIn(tg, { username: 'carol', password: `guess-${i}` }, attacker));
  assertThrottled(t, await signIn(tg, { username: 'carol', password: 'guess-10' }, attacker), 300, 'the 11th guess from that address is refused');
  assertThrottled(t, await signIn(tg, { username: 'carol', password: PASSWORD }, attacker), 300, 'that address is done with carol, right password or not');
  assertSignedIn(t, await signIn(tg, { username: 'carol', password: PASSWORD }, '198.51.100.10'), 'carol', 'carol, from her own address, still signs in');
  assertFailed(
    t,
    await signIn(tg, { username: 'mallory', password: 'guess' }, attacker),
    'password',
    'the attacker address is under its own ceiling for other names',
  );
});

t.test('the per-address ceiling stops one address spraying many usernames', async (t) => {
  const tg = await startTestGateway(t, { config: SMALL });
  const sprayer = '192.0.2.7';
  for (const name of ['ann', 'bob', 'carol', 'dave', 'erin'])
    assertFailed(t, await signIn(tg, { username: name, password: 'guess' }, sprayer), 'password', `${name}: 401`);
  assertThrottled(t, await signIn(tg, { username: 'frank', password: 'guess' }, sprayer), 120, 'a sixth username from the address');
  assertThrottled(t, await signIn(tg, { username: 'carol', password: PASSWORD }, sprayer), 120, 'any user from the address, right password or not');
  assertSignedIn(t, await signIn(tg, { username: 'carol', password: PASSWORD }, '192.0.2.8'), 'carol', 'the same user from another address is fine');
});

t.test('the per-username ceiling stops guessing spread over many addresses', async (t) => {
  const tg = await startTestGateway(t, { config: SMALL });
  for (let i = 1; i <= 6; i++) assertFailed(t, await signIn(tg, { username: 'carol', password: 'guess' }, `10.0.0.${i}`), 'password', `address ${i}: 401`);
  assertThrottled(t, await signIn(tg, { username: 'carol', password: 'guess' }, '10.0.0.7'), 120, 'a seventh address is refused for carol');
  assertThrottled(
    t,
    await signIn(tg, { username: 'carol', password: PASSWORD }, '10.0.0.8'),
    120,
    'at this (normally much higher) ceiling carol is refused everywhere',
  );
  assertSignedIn(t, await signIn(tg, { username: 'dave', password: PASSWORD }, '10.0.0.8'), 'dave', 'other users are not affected');
});

t.test('admin-token failures count against the address only: no one can lock the operator out', async (t) => {
  const tg = await startTestGateway(t, { config: { ...SMALL, throttle_max_failures_per_address: 3 } });
  for (let i = 0; i < 3; i++) assertFailed(t, await signIn(tg, { token: `wrong-${i}` }, '203.0.113.5'), 'token');
  assertThrottled(t, await signIn(tg, { token: tg.adminToken }, '203.0.113.5'), 120, 'that address is refused, even with the right token');
  for (let i = 1; i <= 4; i++) {
    for (let j = 0; j < 2; j++) assertFailed(t, await signIn(tg, { token: `wrong-${i}-${j}` }, `10.0.1.${i}`), 'token');
  }
  assertSignedIn(
    t,
    await signIn(tg, { token: tg.adminToken }, '198.51.100.5'),
    'admin',
    'after 11 failures from 5 addresses the token still signs in from another',
  );
});

for (const store of ['redis', 'embedded'] as const) {
  t.test(`30 concurrent wrong passwords against a limit of 10: exactly 10 are checked (${store} store)`, async (t) => {
    const tg = await startTestGateway(t, { store, config: PROXIED });
    const attacker = '203.0.113.9';
    const responses = await Promise.all(Array.from({ length: 30 }, (_, i) => signIn(tg, { username: 'carol', password: `guess-${i}` }, attacker)));
    const failed = responses.filter((r) => r.statusCode === 401);
    const throttled = responses.filter((r) => r.statusCode === 429);
    t.equal(failed.length, 10, 'exactly 10 passwords were checked');
    t.equal(throttled.length, 20, 'the other 20 were refused before any check');
    assertFailed(t, failed[0]!);
    t.ok(
      failed.every((r) => r.json().error === 'admin_unauthorized' && r.json().message === FAILED),
      'every 401 is the same failure',
    );
    assertThrottled(t, throttled[0]!, 300);
    t.ok(
      throttled.every((r) => r.json().error === 'too_many_requests' && Number(r.headers['retry-after']) >= 1),
      'every 429 is too_many_requests with Retry-After',
    );
    assertSignedIn(t, await signIn(tg, { username: 'carol', password: PASSWORD }, '198.51.100.20'), 'carol', 'carol still signs in from her address');
  });
}

t.test('a successful sign-in is not counted as a failure', async (t) => {
  const tg = await startTestGateway(t, { config: PROXIED });
  const here = '192.0.2.55';
  for (let i = 0; i < 9; i++) assertFailed(t, await signIn(tg, { username: 'carol', password: 'guess' }, here));
  assertSignedIn(t, await signIn(tg, { username: 'carol', password: PASSWORD }, here), 'carol', 'after 9 failures the right password works');
  assertFailed(
    t,
    await signIn(tg, { username: 'carol', password: 'guess' }, here),
    'password',
    'a 10th failure is still checked: the success gave its attempt back',
  );
  assertThrottled(t, await signIn(tg, { username: 'carol', password: PASSWORD }, here), 300, 'after 10 failures the pair is throttled');
});
