// Client-authentication failures are throttled per (client id, address) pair, per address, and per
// client id with a much higher ceiling: 429 too_many_requests with Retry-After. An attacker's
// failures cannot lock the owner out; concurrent attempts cannot overshoot a limit; successes do
// not count. Addresses are simulated with X-Forwarded-For through a trusted 127.0.0.1.
import t, { type Test } from 'tap';
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { startTestGateway } from '../helpers/gateway.js';
import { createClient, tokenRequest } from '../helpers/oauth.js';
import { NodeUnavailableError } from '../../gateway/store/node-unavailable-error.js';
import { SMALL_THROTTLE } from '../helpers/throttle-settings.js';

const PROXIED = { trusted_proxies: ['127.0.0.1'] };
const SMALL = { ...PROXIED, ...SMALL_THROTTLE };
const FAILED = 'Client authentication failed: the client is invalid.';

function from(address: string) {
  return { 'x-forwarded-for': address };
}

function assertFailed(t: Test, response: LightMyRequestResponse, note = 'wrong secret: 401'): void {
  t.equal(response.statusCode, 401, note);
  t.same(response.json(), { error: 'auth_error', message: FAILED, error_description: FAILED, request_id: response.json().request_id });
}

function assertThrottled(t: Test, response: LightMyRequestResponse, windowSeconds: number, note = 'throttled: 429'): void {
  t.equal(response.statusCode, 429, note);
  const retryAfter = Number(response.headers['retry-after']);
  t.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= windowSeconds, `Retry-After ${response.headers['retry-after']}`);
  const message = `Too many failed attempts; retry in ${retryAfter} seconds.`;
  t.same(response.json(), { error: 'too_many_requests', message, error_description: message, request_id: response.json().request_id });
  t.equal(response.headers['cache-control'], 'no-store');
}

function assertIssued(t: Test, response: LightMyRequestResponse, note: string): void {
  t.equal(response.statusCode, 200, note);
  t.match(response.json(), { token_type: 'Bearer', access_token: /^ey/, expires_in: 86400, scope: 'sales' });
}

t.test("an attacker's failures for a client id do not lock out its owner", async (t) => {
  const tg = await startTestGateway(t, { config: PROXIED });
  const victim = await createClient(tg, ['sales']);
  const other = await createClient(tg, ['sales']);
  const attacker = from('203.0.113.66');
  for (let i = 0; i < 10; i++) assertFailed(t, await tokenRequest(tg, { client_id: victim.client_id, client_secret: `guess-${i}` }, attacker));
  assertThrottled(
    t,
    await tokenRequest(tg, { client_id: victim.client_id, client_secret: 'guess-10' }, attacker),
    300,
    'the 11th guess from that address is refused',
  );
  assertThrottled(
    t,
    await tokenRequest(tg, { client_id: victim.client_id, client_secret: victim.client_secret }, attacker),
    300,
    'that address is done with this client, right secret or not',
  );
  assertIssued(
    t,
    await tokenRequest(tg, { client_id: victim.client_id, client_secret: victim.client_secret }, from('198.51.100.10')),
    'the owner, from its own address, still gets a token',
  );
  assertIssued(
    t,
    await tokenRequest(tg, { client_id: other.client_id, client_secret: other.client_secret }, attacker),
    'the attacker address is under its own ceiling for other clients',
  );
  t.same(tg.upstreams.public.received, []);
});

t.test('the per-address ceiling stops one address spraying many client ids', async (t) => {
  const tg = await startTestGateway(t, { config: SMALL });
  const client = await createClient(tg, ['sales']);
  const sprayer = from('192.0.2.7');
  for (let i = 0; i < 5; i++) assertFailed(t, await tokenRequest(tg, { client_id: randomUUID(), client_secret: 'guess' }, sprayer), `client id ${i}: 401`);
  assertThrottled(t, await tokenRequest(tg, { client_id: randomUUID(), client_secret: 'guess' }, sprayer), 120, 'a sixth client id from the address');
  assertThrottled(
    t,
    await tokenRequest(tg, { client_id: client.client_id, client_secret: client.client_secret }, sprayer),
    120,
    'any client from the address, right secret or not',
  );
  assertIssued(
    t,
    await tokenRequest(tg, { client_id: client.client_id, client_secret: client.client_secret }, from('192.0.2.8')),
    'the same client from another address is fine',
  );
});

t.test('the per-client ceiling stops guessing spread over many addresses', async (t) => {
  const tg = await startTestGateway(t, { config: SMALL });
  const victim = await createClient(tg, ['sales']);
  const other = await createClient(tg, ['sales']);
  for (let i = 1; i <= 6; i++)
    assertFailed(t, await tokenRequest(tg, { client_id: victim.client_id, client_secret: 'guess' }, from(`10.0.0.${i}`)), `address ${i}: 401`);
  assertThrottled(
    t,
    await tokenRequest(tg, { client_id: victim.client_id, client_secret: 'guess' }, from('10.0.0.7')),
    120,
    'a seventh address is refused for this client',
  );
  assertThrottled(
    t,
    await tokenRequest(tg, { client_id: victim.client_id, client_secret: victim.client_secret }, from('10.0.0.8')),
    120,
    'at this (normally much higher) ceiling the client is refused everywhere',
  );
  assertIssued(
    t,
    await tokenRequest(tg, { client_id: other.client_id, client_secret: other.client_secret }, from('10.0.0.8')),
    'other clients are not affected',
  );
});

t.test('an untrusted peer cannot dodge the address throttle with X-Forwarded-For', async (t) => {
  const tg = await startTestGateway(t, { config: { throttle_max_failures: 3, throttle_max_failures_per_address: 3 } });
  const client = await createClient(tg, ['sales']);
  for (let i = 0; i < 3; i++) assertFailed(t, await tokenRequest(tg, { client_id: randomUUID(), client_secret: 'guess' }, from(`198.51.100.${i}`)));
  const blocked = await tokenRequest(tg, { client_id: client.client_id, client_secret: client.client_secret }, from('198.51.100.99'));
  assertThrottled(t, blocked, 300, 'the socket address (no trusted proxies) is what counts');
});

t.test('Basic authentication failures count too, and throttling shows in the metrics', async (t) => {
  const tg = await startTestGateway(t, { config: SMALL });
  const client = await createClient(tg, ['sales']);
  const basic = `Basic ${Buffer.from(`${client.client_id}:wrong`).toString('base64')}`;
  for (let i = 0; i < 3; i++) assertFailed(t, await tokenRequest(tg, {}, { authorization: basic }));
  assertThrottled(t, await tokenRequest(tg, {}, { authorization: basic }), 120);
  const metrics = await tg.gateway.metrics.registry.getSingleMetricAsString('gateway_auth_failures_total');
  t.match(metrics, 'gateway_auth_failures_total{scheme="client",reason="auth_error"} 3');
  t.match(metrics, 'gateway_auth_failures_total{scheme="client",reason="too_many_requests"} 1');
});

for (const store of ['redis', 'embedded'] as const) {
  t.test(`100 concurrent wrong secrets against a limit of 10: exactly 10 are checked (${store} store)`, async (t) => {
    const tg = await startTestGateway(t, { store, config: PROXIED });
    const victim = await createClient(tg, ['sales']);
    const attacker = from('203.0.113.9');
    const responses = await Promise.all(
      Array.from({ length: 100 }, (_, i) => tokenRequest(tg, { client_id: victim.client_id, client_secret: `guess-${i}` }, attacker)),
    );
    const failed = responses.filter((r) => r.statusCode === 401);
    const throttled = responses.filter((r) => r.statusCode === 429);
    t.equal(failed.length, 10, 'exactly 10 secrets were checked');
    t.equal(throttled.length, 90, 'the other 90 were refused before any check');
    t.same(failed[0]!.json(), { error: 'auth_error', message: FAILED, error_description: FAILED, request_id: failed[0]!.json().request_id });
    const withoutRequestId = (r: (typeof failed)[number]) => JSON.stringify({ ...r.json(), request_id: undefined });
    t.ok(
      failed.every((r) => withoutRequestId(r) === withoutRequestId(failed[0]!)),
      'every 401 has the same body but for its request_id',
    );
    assertThrottled(t, throttled[0]!, 300);
    t.ok(
      throttled.every((r) => r.json().error === 'too_many_requests' && Number(r.headers['retry-after']) >= 1),
      'every 429 is too_many_requests with Retry-After',
    );
    assertIssued(
      t,
      await tokenRequest(tg, { client_id: victim.client_id, client_secret: victim.client_secret }, from('198.51.100.20')),
      'the owner still gets a token from its address',
    );
  });

  t.test(`50 concurrent right secrets from one address, over a limit of 10: every one gets a token (${store} store)`, async (t) => {
    const tg = await startTestGateway(t, { store, config: PROXIED });
    const client = await createClient(tg, ['sales']);
    const here = from('192.0.2.77');
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => tokenRequest(tg, { client_id: client.client_id, client_secret: client.client_secret }, here)),
    );
    t.same(
      responses.map((r) => r.statusCode),
      Array(50).fill(200),
      'requests in flight together are not failures',
    );
    for (let i = 0; i < 10; i++) assertFailed(t, await tokenRequest(tg, { client_id: client.client_id, client_secret: 'guess' }, here));
    assertThrottled(t, await tokenRequest(tg, { client_id: client.client_id, client_secret: client.client_secret }, here), 300, 'and the ceiling still holds');
  });
}

t.test('a success is not counted as a failure', async (t) => {
  const tg = await startTestGateway(t, { config: PROXIED });
  const client = await createClient(tg, ['sales']);
  const here = from('192.0.2.55');
  for (let i = 0; i < 9; i++) assertFailed(t, await tokenRequest(tg, { client_id: client.client_id, client_secret: 'guess' }, here));
  assertIssued(
    t,
    await tokenRequest(tg, { client_id: client.client_id, client_secret: client.client_secret }, here),
    'after 9 failures the right secret works',
  );
  assertFailed(
    t,
    await tokenRequest(tg, { client_id: client.client_id, client_secret: 'guess' }, here),
    'a 10th failure is still checked: the success gave its attempt back',
  );
  assertThrottled(
    t,
    await tokenRequest(tg, { client_id: client.client_id, client_secret: client.client_secret }, here),
    300,
    'after 10 failures the pair is throttled',
  );
});

t.test("the counters' Cluster master lost: a right secret still gets a token, a wrong one 503 uncounted; a sign-in with a password fails closed", async (t) => {
  let lost = false;
  const unavailable = () => Promise.reject(new NodeUnavailableError('127.0.0.1:7001', new Error('Command timed out')));
  const tg = await startTestGateway(t, {
    config: PROXIED,
    wrapStore: (store) =>
      new Proxy(store, {
        get(target, property, receiver) {
          if (lost && (property === 'checkAttempt' || property === 'reserveAttempt')) return unavailable;
          const value: unknown = Reflect.get(target, property, receiver);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      }),
  });
  const client = await createClient(tg, ['sales']);
  const here = from('192.0.2.91');
  lost = true;
  assertIssued(t, await tokenRequest(tg, { client_id: client.client_id, client_secret: client.client_secret }, here), 'the right secret: a token');
  const wrong = await tokenRequest(tg, { client_id: client.client_id, client_secret: 'guess' }, here);
  t.equal(wrong.statusCode, 503, 'a wrong secret cannot be counted: 503, not 401');
  t.equal(wrong.json<{ error: string }>().error, 'store_unavailable');
  const signIn = await tg.gateway.adminApp.inject({ method: 'POST', url: '/dashboard/api/sign-in', payload: { token: 'wrong' } });
  t.equal(signIn.statusCode, 503, 'a dashboard sign-in (reserve-first) is refused while nothing can be counted');
  lost = false;
  assertFailed(t, await tokenRequest(tg, { client_id: client.client_id, client_secret: 'guess' }, here), 'counted again once the master is back');
});
