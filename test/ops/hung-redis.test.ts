// Bounded latency while Redis hangs or is gone: the first requests wait one command timeout and get
// 503 store_unavailable; then the circuit breaker opens and requests get 503 at once, without a
// store call; nothing reaches an upstream; the gateway recovers by itself; and the outage is
// logged once when it begins and once when it ends, without stack traces.
import { performance } from 'node:perf_hooks';
import t, { type Test } from 'tap';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { listen } from '../helpers/http.js';
import { accessToken, createClient } from '../helpers/oauth.js';
import { until } from '../helpers/poll.js';
import { startRedisServer } from '../helpers/redis-server.js';

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function timed(url: string, init: RequestInit = {}): Promise<{ status: number; body: { error?: string }; ms: number }> {
  const start = performance.now();
  const response = await fetch(url, init);
  const body = (await response.json()) as { error?: string };
  return { status: response.status, body, ms: performance.now() - start };
}

async function metric(tg: TestGateway, name: string): Promise<string> {
  return tg.gateway.metrics.registry.getSingleMetricAsString(name);
}

/** Store transition lines in the captured logs (each a JSON line with an event field). */
function transitions(tg: TestGateway): { event: string; msg: string; reason?: string; outage_ms?: number }[] {
  return tg.logs.lines
    .map((l) => JSON.parse(l) as { event?: string; msg: string })
    .filter((l): l is { event: string; msg: string } => l.event === 'store_down' || l.event === 'store_up');
}

/**
 * A gateway on a Redis of the test's own (it is hung and stopped), a client, and a timed Bearer GET.
 * The Bearer cache is off: the subject is what a request that needs Redis meets (with the cache, a
 * known token is answered from memory for at most the lease first: test/store/tracked-cache.test.ts).
 */
async function gatewayOnOwnRedis(t: Test) {
  const redis = await startRedisServer(t);
  const tg = await startTestGateway(t, { config: { redis_url: redis.url, redis_command_timeout_ms: 250, redis_cache_lease_ms: 0 } });
  const { publicUrl, adminUrl } = await listen(tg);
  const client = await createClient(tg, ['sales']);
  const token = await accessToken(tg, client);
  const get = () => timed(`${publicUrl}/v1/sales/1`, { headers: { authorization: `Bearer ${token}` } });
  return { redis, tg, publicUrl, adminUrl, client, get };
}

t.test('a hung Redis: 503 within the command timeout, then at once; recovery by itself', async (t) => {
  const { redis, tg, publicUrl, adminUrl, client, get } = await gatewayOnOwnRedis(t);
  t.equal((await get()).status, 200, 'control: forwarded while Redis answers');
  t.match(await metric(tg, 'gateway_store_up'), /gateway_store_up 1/);
  const forwardedBefore = tg.upstreams.public.received.length;
  const linesBefore = transitions(tg).length;

  redis.hang();
  const first = await get();
  t.equal(first.status, 503);
  t.equal(first.body.error, 'store_unavailable');
  t.ok(first.ms < 1500, 'the first request waits one command timeout at most, not the client');
  t.comment(`first 503 with Redis hung: ${first.ms.toFixed(0)} ms (command timeout ${tg.settings.redisCommandTimeoutMs} ms)`);

  // A few more command timeouts open the breaker (bounded: 10 requests).
  for (let i = 0; i < 10 && /gateway_store_up 1/.test(await metric(tg, 'gateway_store_up')); i++) t.equal((await get()).status, 503);
  t.match(await metric(tg, 'gateway_store_up'), /gateway_store_up 0/, 'the breaker is open');

  const latencies: number[] = [];
  const started = performance.now();
  for (let i = 0; i < 100; i++) {
    const response = await get();
    if (response.status !== 503 || response.body.error !== 'store_unavailable') t.fail(`request ${i}: ${response.status} ${JSON.stringify(response.body)}`);
    latencies.push(response.ms);
  }
  const elapsed = performance.now() - started;
  latencies.sort((a, b) => a - b);
  const p50 = percentile(latencies, 50);
  const p99 = percentile(latencies, 99);
  t.comment(`100 requests with the breaker open: p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, ${(100_000 / elapsed).toFixed(0)} req/s sequential`);
  t.ok(p50 < tg.settings.redisCommandTimeoutMs / 2, 'requests no longer wait for the store');

  const token503 = await timed(`${publicUrl}/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: client.client_id, client_secret: client.client_secret }).toString(),
  });
  t.equal(token503.status, 503, 'the token endpoint too');
  t.equal(token503.body.error, 'store_unavailable');
  const ready = await fetch(`${adminUrl}/readyz`);
  t.equal(ready.status, 503);
  t.match(await ready.json(), { missing: ['store'], details: { store: /timed out|circuit open/ } });
  t.equal(tg.upstreams.public.received.length, forwardedBefore, 'nothing reached the upstream during the outage');

  const resumed = performance.now();
  redis.resume();
  await until(async () => (await fetch(`${adminUrl}/readyz`)).status === 200, 'ready again', 10_000);
  t.comment(`time to ready after Redis resumed: ${(performance.now() - resumed).toFixed(0)} ms`);
  t.equal((await get()).status, 200, 'forwarded again');
  t.match(await metric(tg, 'gateway_store_up'), /gateway_store_up 1/);
  t.match(await metric(tg, 'gateway_store_outages_total'), /gateway_store_outages_total 1/);

  const lines = transitions(tg).slice(linesBefore);
  t.same(
    lines.map((l) => l.event),
    ['store_down', 'store_up'],
    `one line when the outage began, one when it ended, over ${latencies.length + 3} refused requests`,
  );
  t.match(lines[0], { reason: /timed out/i });
  t.ok(typeof lines[1]?.outage_ms === 'number' && lines[1].outage_ms > 0, 'the up line gives the outage duration');
  t.notOk(
    tg.logs.lines.some((l) => l.includes('"stack"')),
    'no stack trace in any log line',
  );
  t.notOk(
    tg.logs.lines.some((l) => l.includes('request failed')),
    'no per-request error line for store_unavailable',
  );
});

t.test('Redis gone (connection refused) and back empty: fail fast, recover, one line each way', async (t) => {
  const { redis, tg, adminUrl, get } = await gatewayOnOwnRedis(t);
  const forwardedBefore = tg.upstreams.public.received.length;
  const linesBefore = transitions(tg).length;

  await redis.stop();
  const latencies: number[] = [];
  for (let i = 0; i < 200; i++) {
    const response = await get();
    if (response.status !== 503) t.fail(`request ${i}: ${response.status}`);
    latencies.push(response.ms);
  }
  latencies.sort((a, b) => a - b);
  t.comment(`200 requests with Redis down: p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms`);
  t.match(await metric(tg, 'gateway_store_up'), /gateway_store_up 0/);

  const restarted = performance.now();
  await redis.start();
  await until(async () => (await fetch(`${adminUrl}/readyz`)).status === 200, 'ready again', 10_000);
  t.comment(`time to ready after Redis restarted: ${(performance.now() - restarted).toFixed(0)} ms`);
  // The restarted Redis is empty: the client is gone, so its token fails (401), never forwarded.
  t.equal((await get()).status, 401, 'checked against the (empty) store again');
  t.equal(tg.upstreams.public.received.length, forwardedBefore, 'nothing reached the upstream');
  const lines = transitions(tg).slice(linesBefore);
  t.same(
    lines.map((l) => l.event),
    ['store_down', 'store_up'],
    'one line each way over 200 refused requests',
  );
  t.notOk(
    tg.logs.lines.some((l) => l.includes('"stack"')),
    'no stack trace in any log line',
  );
});
