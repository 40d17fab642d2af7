// Repeated client-authentication failures are throttled per client id and per source address:
// 429 too_many_requests with Retry-After, even for the right secret, until the window ends.
import t from 'tap';
import { startTestGateway } from '../helpers/gateway.js';
import { createClient, tokenRequest } from '../helpers/oauth.js';

const CONFIG = { throttle_max_failures: 3, throttle_window_seconds: 120, trusted_proxies: ['127.0.0.1'] };

t.test('per client id: failures from many addresses block that client everywhere', async (t) => {
  const tg = await startTestGateway(t, { config: CONFIG });
  const victim = await createClient(tg, ['sales']);
  const other = await createClient(tg, ['sales']);
  for (const ip of ['10.0.0.1', '10.0.0.2', '10.0.0.3']) {
    const failed = await tokenRequest(tg, { client_id: victim.client_id, client_secret: 'guess' }, { 'x-forwarded-for': ip });
    t.equal(failed.statusCode, 401);
  }
  const blocked = await tokenRequest(tg, { client_id: victim.client_id, client_secret: victim.client_secret }, { 'x-forwarded-for': '10.0.0.4' });
  t.equal(blocked.statusCode, 429, 'even the right secret is refused while the client id is throttled');
  const body = blocked.json() as Record<string, string>;
  t.equal(body.error, 'too_many_requests');
  t.equal(body.error_description, body.message);
  t.match(body.message, /retry in \d+ seconds/);
  const retryAfter = Number(blocked.headers['retry-after']);
  t.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 120, `Retry-After ${blocked.headers['retry-after']}`);
  t.equal(blocked.headers['cache-control'], 'no-store');
  const fine = await tokenRequest(tg, { client_id: other.client_id, client_secret: other.client_secret }, { 'x-forwarded-for': '10.0.0.4' });
  t.equal(fine.statusCode, 200, 'another client from a clean address is not affected');
  t.same(tg.upstreams.public.received, []);
});

t.test('per source address: failures with many client ids block the address', async (t) => {
  const tg = await startTestGateway(t, { config: CONFIG });
  const client = await createClient(tg, ['sales']);
  for (let i = 0; i < 3; i++) {
    const failed = await tokenRequest(tg, { client_id: `00000000-0000-4000-8000-00000000000${i}`, client_secret: 'guess' }, { 'x-forwarded-for': '192.0.2.7' });
    t.equal(failed.statusCode, 401);
  }
  const blocked = await tokenRequest(tg, { client_id: client.client_id, client_secret: client.client_secret }, { 'x-forwarded-for': '192.0.2.7' });
  t.equal(blocked.statusCode, 429);
  t.equal(blocked.json().error, 'too_many_requests');
  t.ok(Number(blocked.headers['retry-after']) >= 1);
  const elsewhere = await tokenRequest(tg, { client_id: client.client_id, client_secret: client.client_secret }, { 'x-forwarded-for': '192.0.2.8' });
  t.equal(elsewhere.statusCode, 200, 'the same client from another address is fine');
});

t.test('an untrusted peer cannot dodge the address throttle with X-Forwarded-For', async (t) => {
  const tg = await startTestGateway(t, { config: { throttle_max_failures: 3 } });
  const client = await createClient(tg, ['sales']);
  for (let i = 0; i < 3; i++) {
    await tokenRequest(tg, { client_id: `00000000-0000-4000-8000-00000000001${i}`, client_secret: 'guess' }, { 'x-forwarded-for': `198.51.100.${i}` });
  }
  const blocked = await tokenRequest(tg, { client_id: client.client_id, client_secret: client.client_secret }, { 'x-forwarded-for': '198.51.100.99' });
  t.equal(blocked.statusCode, 429, 'the socket address (no trusted proxies) is what counts');
});

t.test('Basic authentication failures count too, and throttling shows in the metrics', async (t) => {
  const tg = await startTestGateway(t, { config: CONFIG });
  const client = await createClient(tg, ['sales']);
  const basic = `Basic ${Buffer.from(`${client.client_id}:wrong`).toString('base64')}`;
  for (let i = 0; i < 3; i++) t.equal((await tokenRequest(tg, {}, { authorization: basic })).statusCode, 401);
  t.equal((await tokenRequest(tg, {}, { authorization: basic })).statusCode, 429);
  const metrics = await tg.gateway.metrics.registry.getSingleMetricAsString('gateway_auth_failures_total');
  t.match(metrics, 'gateway_auth_failures_total{scheme="client",reason="auth_error"} 3');
  t.match(metrics, 'gateway_auth_failures_total{scheme="client",reason="too_many_requests"} 1');
});
