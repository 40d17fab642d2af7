// The durability guard: the gateway reads how Redis persists writes (CONFIG GET, else INFO
// persistence, else "cannot verify"), warns when credentials would be lost on a Redis restart, and
// with GATEWAY_REQUIRE_REDIS_PERSISTENCE=true refuses readiness (in production: the start).
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { startEchoUpstream } from '../../gateway/examples/echo-upstream.js';
import { judgePersistence } from '../../gateway/ops/persistence-verdict.js';
import { readPersistence } from '../../gateway/store/redis-persistence.js';
import { StoreUnavailableError } from '../../gateway/store/types.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { startGatewayProcess } from '../helpers/gateway-process.js';
import { until } from '../helpers/poll.js';
import { startRedisServer } from '../helpers/redis-server.js';

function persistenceLines(tg: TestGateway): { level: number; msg: string }[] {
  return tg.logs.lines.map((l) => JSON.parse(l) as { level: number; msg: string; event?: string }).filter((l) => l.event === 'redis_persistence');
}

async function readyz(tg: TestGateway) {
  const response = await tg.gateway.adminApp.inject({ method: 'GET', url: '/readyz' });
  return { status: response.statusCode, body: response.json<{ missing?: string[]; details?: Record<string, string> }>() };
}

t.test('a Redis without persistence: a warning at start, still ready by default in development', async (t) => {
  const redis = await startRedisServer(t, { args: ['--appendonly', 'no', '--save', ''] });
  const tg = await startTestGateway(t, { config: { redis_url: redis.url } });
  const lines = persistenceLines(tg);
  t.equal(lines.length, 1, 'one warning');
  t.equal(lines[0]?.level, 40, 'at warn level');
  t.match(lines[0]?.msg, /appendonly no and save "": it keeps credentials in memory only.*Set appendonly yes and appendfsync everysec/);
  t.equal((await readyz(tg)).status, 200);
});

t.test('RDB snapshots only: warned too (changes since the last snapshot, deletions included, are lost)', async (t) => {
  const redis = await startRedisServer(t, { args: ['--appendonly', 'no', '--save', '3600 1'] });
  const tg = await startTestGateway(t, { config: { redis_url: redis.url } });
  t.match(persistenceLines(tg)[0]?.msg, /only RDB snapshots \(save "3600 1"\).*a deleted credential can come back/);
});

t.test('with appendonly yes: no warning, and ready when persistence is required', async (t) => {
  const redis = await startRedisServer(t, { args: ['--appendonly', 'yes', '--appendfsync', 'everysec', '--save', ''] });
  const tg = await startTestGateway(t, { config: { redis_url: redis.url, require_redis_persistence: true } });
  t.same(persistenceLines(tg), [], 'nothing to warn about');
  t.equal((await readyz(tg)).status, 200);
});

t.test('CONFIG refused (managed Redis): INFO persistence decides', async (t) => {
  const redis = await startRedisServer(t, { args: ['--appendonly', 'no', '--save', '', '--rename-command', 'CONFIG', ''] });
  const tg = await startTestGateway(t, { config: { redis_url: redis.url } });
  t.match(persistenceLines(tg)[0]?.msg, /aof_enabled:0 \(INFO persistence\)/);
});

t.test('required in development: not ready (503 everywhere, nothing forwarded) until Redis persists', async (t) => {
  const redis = await startRedisServer(t, { args: ['--appendonly', 'no', '--save', ''] });
  const tg = await startTestGateway(t, { config: { redis_url: redis.url, require_redis_persistence: true } });
  const notReady = await readyz(tg);
  t.equal(notReady.status, 503);
  t.same(notReady.body.missing, ['redis_persistence']);
  t.match(notReady.body.details?.redis_persistence, /appendonly no/);
  const routed = await tg.gateway.publicApp.inject({ method: 'GET', url: '/v1/sales/1', headers: { authorization: 'Bearer x.y.z' } });
  t.equal(routed.statusCode, 503);
  t.equal(routed.json().error, 'store_unavailable');
  t.equal(tg.upstreams.public.received.length, 0);
  const refusal = persistenceLines(tg);
  t.equal(refusal.length, 1, 'logged once, not on every retry');
  t.equal(refusal[0]?.level, 50);
  t.match(refusal[0]?.msg, /GATEWAY_REQUIRE_REDIS_PERSISTENCE is true: not ready\. Set appendonly yes/);

  await redis.command('CONFIG', 'SET', 'appendonly', 'yes');
  await until(async () => (await readyz(tg)).status === 200, 'ready once Redis persists', 10_000);
  t.equal(persistenceLines(tg).length, 2, 'and one line when it is resolved');
});

t.test('required in production: the process refuses to start, naming the setting', async (t) => {
  const redis = await startRedisServer(t, { args: ['--appendonly', 'no', '--save', ''] });
  const upstream = await startEchoUpstream('public');
  t.teardown(() => upstream.close());
  const started = startGatewayProcess(t, {
    GATEWAY_ENV: 'production',
    REDIS_URL: redis.url,
    GATEWAY_ADMIN_TOKEN: randomBytes(24).toString('hex'),
    PUBLIC_UPSTREAM: upstream.url,
    BANKING_UPSTREAM: upstream.url,
  });
  await t.rejects(started, { message: /gateway exited with 1[\s\S]*appendonly no[\s\S]*GATEWAY_REQUIRE_REDIS_PERSISTENCE is true: refusing to start/ });
});

t.test('readPersistence: CONFIG, then INFO, then unknown; a timeout is an outage, not a refusal', async (t) => {
  const refused = Object.assign(new Error('ERR unknown command'), { name: 'ReplyError' });
  const config = {
    call: async (_c: string, _g: string, name: string) =>
      ({ appendonly: ['appendonly', 'yes'], appendfsync: ['appendfsync', 'always'], save: ['save', ''] })[name],
  };
  t.same(await readPersistence(config), { source: 'config', appendonly: true, appendfsync: 'always', save: '' });
  const info = { call: async (command: string) => (command === 'INFO' ? '# Persistence\r\naof_enabled:1\r\n' : Promise.reject(refused)) };
  t.match(await readPersistence(info), { source: 'info', appendonly: true });
  const neither = { call: async () => Promise.reject(refused) };
  const unknown = await readPersistence(neither);
  t.match(unknown, { source: 'unknown', appendonly: undefined, refusal: /CONFIG: ERR unknown command; INFO: ERR unknown command/ });
  t.match(judgePersistence(unknown), { status: 'unknown', problem: /cannot be verified/ });
  await t.rejects(readPersistence({ call: async () => Promise.reject(new Error('Command timed out')) }), StoreUnavailableError);
  t.match(judgePersistence({ source: 'config', appendonly: true, appendfsync: 'no', save: '' }), { status: 'durable', warning: /appendfsync no/ });
});
