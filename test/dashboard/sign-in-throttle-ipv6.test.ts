// IPv6 cannot dodge the dashboard sign-in throttle: every address of one /64 counts as one
// network, so password guesses from a /64 stop at the (username, network) ceiling before any more
// scrypt checks run, admin-token guesses at the network ceiling, and the user signs in from
// another network. Addresses are simulated with X-Forwarded-For through a trusted 127.0.0.1.
import t, { type Test } from 'tap';
import type { LightMyRequestResponse } from 'fastify';
import { hashPassword } from '../../gateway/dashboard/password-hash.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { SMALL_THROTTLE } from '../helpers/throttle-settings.js';

const PASSWORD = 'a long dashboard password';
// A cheap cost keeps the concurrent checks fast; the throttle does not depend on the cost.
const USERS = [`carol:${await hashPassword(PASSWORD, { N: 1024, r: 8, p: 1 })}`];
const PROXIED = { trusted_proxies: ['127.0.0.1'], dashboard_users: USERS };
const SMALL = { ...PROXIED, ...SMALL_THROTTLE };

function signIn(tg: TestGateway, payload: Record<string, string>, address: string) {
  return tg.gateway.adminApp.inject({ method: 'POST', url: '/dashboard/api/sign-in', headers: { 'x-forwarded-for': address }, payload });
}

/** The i-th of many addresses in the /64 whose first four groups are network: varied interface identifiers. */
function hostIn(network: string, i: number): string {
  const group = (n: number) => ((Math.imul(i + 1, n) >>> 0) & 0xffff).toString(16);
  return `${network}:${group(0x9e37)}:${group(0x85eb)}:${group(0xc2b2)}:${(i & 0xffff).toString(16)}`;
}

function assertThrottled(t: Test, response: LightMyRequestResponse, windowSeconds: number, note: string): void {
  t.equal(response.statusCode, 429, note);
  const retryAfter = Number(response.headers['retry-after']);
  t.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= windowSeconds, `Retry-After ${response.headers['retry-after']}`);
  t.same(response.json(), {
    error: 'too_many_requests',
    message: `Too many failed sign-ins; retry in ${retryAfter} seconds.`,
    request_id: response.json().request_id,
  });
  t.equal(response.headers['set-cookie'], undefined, 'no session');
}

function assertSignedIn(t: Test, response: LightMyRequestResponse, user: string, note: string): void {
  t.equal(response.statusCode, 200, note);
  t.match(response.json(), { user });
  t.match(String(response.headers['set-cookie']), /^gateway_session=/);
}

for (const store of ['redis', 'embedded'] as const) {
  t.test(`30 concurrent password guesses from 30 addresses of one /64: exactly 10 are checked (${store} store)`, async (t) => {
    const tg = await startTestGateway(t, { store, config: PROXIED });
    const responses = await Promise.all(
      Array.from({ length: 30 }, (_, i) => signIn(tg, { username: 'carol', password: `guess-${i}` }, hostIn('2001:db8:66:1', i))),
    );
    const failed = responses.filter((r) => r.statusCode === 401);
    const throttled = responses.filter((r) => r.statusCode === 429);
    // Sign-ins reserve their attempt before scrypt runs: a 429 never reached the password check.
    t.equal(failed.length, 10, 'exactly 10 passwords were checked, as from one IPv4 address');
    t.equal(throttled.length, 20, 'the other 20 were refused before any check');
    t.ok(
      failed.every((r) => r.json().error === 'admin_unauthorized'),
      'every 401 is the same failure',
    );
    assertThrottled(t, throttled[0]!, 300, 'a refused guess');
    assertThrottled(
      t,
      await signIn(tg, { username: 'carol', password: PASSWORD }, '2001:db8:66:1::1'),
      300,
      'any address of that /64 is done with carol, right password or not',
    );
    assertSignedIn(t, await signIn(tg, { username: 'carol', password: PASSWORD }, '2001:db8:66:2::1'), 'carol', 'carol signs in from the next /64');
  });
}

t.test('guesses sprayed over one /64 cannot lock a user out', async (t) => {
  // Twice the pair ceiling is the smallest credential ceiling allowed: one network spends half.
  const tg = await startTestGateway(t, { config: SMALL });
  const statuses: number[] = [];
  for (let i = 0; i < 20; i++) statuses.push((await signIn(tg, { username: 'carol', password: 'guess' }, hostIn('2001:db8:bad:7', i))).statusCode);
  t.same(statuses, [401, 401, 401, ...Array<number>(17).fill(429)], "the /64 gets 3 checks of carol's 6");
  assertSignedIn(t, await signIn(tg, { username: 'carol', password: PASSWORD }, '2001:db8:600d::5'), 'carol', 'carol, from her own /64, signs in');
  assertSignedIn(t, await signIn(tg, { username: 'carol', password: PASSWORD }, '198.51.100.10'), 'carol', 'and from an IPv4 address');
});

t.test('the per-network ceiling stops one /64 spraying usernames and admin tokens', async (t) => {
  const tg = await startTestGateway(t, { config: SMALL });
  const names = ['ann', 'bob', 'erin'];
  for (const [i, name] of names.entries())
    t.equal((await signIn(tg, { username: name, password: 'guess' }, hostIn('2001:db8:5:5', i))).statusCode, 401, `${name}: 401`);
  for (let i = 3; i < 5; i++) t.equal((await signIn(tg, { token: `wrong-${i}` }, hostIn('2001:db8:5:5', i))).statusCode, 401, `admin token ${i}: 401`);
  assertThrottled(t, await signIn(tg, { username: 'frank', password: 'guess' }, hostIn('2001:db8:5:5', 5)), 120, 'a sixth failure from the /64');
  assertThrottled(t, await signIn(tg, { token: tg.adminToken }, hostIn('2001:db8:5:5', 6)), 120, 'the admin token from the /64, even the right one');
  assertSignedIn(t, await signIn(tg, { token: tg.adminToken }, '2001:db8:5:6::1'), 'admin', 'the admin token from another /64 is fine');
  assertSignedIn(t, await signIn(tg, { username: 'carol', password: PASSWORD }, '2001:db8:5:6::2'), 'carol', 'and so is carol');
});
