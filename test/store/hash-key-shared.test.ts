// The client-secret hashing key is shared by every instance and must never split between them
// after the store lost it (Redis restarted empty, FLUSHALL, eviction): an instance that holds the
// key writes it back; a fresh instance creates one only when the store holds no client; with
// clients but no key it refuses (not ready, 503, one loud log line) until the key is back.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { settingsFrom } from '../../gateway/config/settings.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { createClient, tokenRequest, type CreatedClient } from '../helpers/oauth.js';
import { until } from '../helpers/poll.js';
import { uniquePrefix } from '../helpers/redis.js';
import { startRedisServer, type OwnRedis } from '../helpers/redis-server.js';

const HASH_KEY = 'meta:client-secret-hash-key';

async function tokenStatus(tg: TestGateway, client: CreatedClient): Promise<number> {
  return (await tokenRequest(tg, { client_id: client.client_id, client_secret: client.client_secret })).statusCode;
}

async function instances(t: Test, redis: OwnRedis, count: number, config: Record<string, unknown> = {}) {
  const prefix = uniquePrefix('hashkey');
  const all: TestGateway[] = [];
  for (let i = 0; i < count; i++) all.push(await startTestGateway(t, { config: { redis_url: redis.url, ...config }, redisPrefix: prefix }));
  return { prefix, all };
}

t.test('FLUSHALL: a client created afterwards on one instance authenticates on the other', async (t) => {
  const redis = await startRedisServer(t);
  const { prefix, all } = await instances(t, redis, 2);
  const [a, b] = all as [TestGateway, TestGateway];
  const before = await createClient(a, ['sales']);
  t.equal(await tokenStatus(b, before), 200, 'control: shared before');
  const key = await redis.command('GET', prefix + HASH_KEY);

  await redis.command('FLUSHALL');
  const after = await createClient(a, ['sales']);
  t.equal(await tokenStatus(b, after), 200, 'created on A after the flush, authenticated on B');
  const fromB = await createClient(b, ['sales']);
  t.equal(await tokenStatus(a, fromB), 200, 'and the other way round');
  t.equal(await redis.command('GET', prefix + HASH_KEY), key, 'the key the instances held was written back, not replaced');
  t.ok(
    a.logs.lines.some((l) => l.includes('restored the key this instance holds')),
    'the restoration is logged',
  );

  const late = await startTestGateway(t, { config: { redis_url: redis.url }, redisPrefix: prefix });
  t.equal(await tokenStatus(late, after), 200, 'an instance started later uses the same key');
});

t.test('Redis restarted empty: the instances write their key back as soon as it answers', async (t) => {
  const redis = await startRedisServer(t);
  const { prefix, all } = await instances(t, redis, 2);
  const [a, b] = all as [TestGateway, TestGateway];
  const key = await redis.command('GET', prefix + HASH_KEY);
  const signingKeys = await redis.command('GET', `${prefix}meta:jwt-signing-keys`);
  await redis.stop();
  await redis.start();
  await until(async () => (await redis.command('GET', prefix + HASH_KEY)) !== null, 'the key is back in the store', 10_000);
  t.equal(await redis.command('GET', prefix + HASH_KEY), key, 'the same key');
  await until(async () => (await redis.command('GET', `${prefix}meta:jwt-signing-keys`)) !== null, 'the signing keys are back', 10_000);
  t.equal(await redis.command('GET', `${prefix}meta:jwt-signing-keys`), signingKeys, 'and the same JWT signing keys: tokens issued before stay valid');
  // Each instance's breaker closes at its own next probe: whichever wrote the key back, both must be ready.
  for (const [name, instance] of [
    ['A', a],
    ['B', b],
  ] as const) {
    await until(async () => (await instance.gateway.adminApp.inject({ method: 'GET', url: '/readyz' })).statusCode === 200, `${name} ready`, 10_000);
  }
  const client = await createClient(a, ['sales']);
  t.equal(await tokenStatus(b, client), 200, 'created on A after the restart, authenticated on B');
});

t.test('clients but no key, and no instance holding it: refused loudly, resolved when the key is back', async (t) => {
  const redis = await startRedisServer(t);
  const { prefix, all } = await instances(t, redis, 1);
  const [a] = all as [TestGateway];
  const client = await createClient(a, ['sales']);
  const key = (await redis.command('GET', prefix + HASH_KEY)) as string;
  // The key alone is lost (evicted, deleted by hand): clients remain, made under it.
  await redis.command('DEL', prefix + HASH_KEY);
  const fresh = await startTestGateway(t, { config: { redis_url: redis.url }, redisPrefix: prefix });

  const ready = await fresh.gateway.adminApp.inject({ method: 'GET', url: '/readyz' });
  t.equal(ready.statusCode, 503);
  t.match(ready.json(), { missing: ['client_secret_hash_key'], details: { client_secret_hash_key: /holds OAuth clients but no client-secret hashing key/ } });
  const refused = await tokenRequest(fresh, { client_id: client.client_id, client_secret: client.client_secret });
  t.equal(refused.statusCode, 503, 'the token endpoint refuses rather than answer 401 under a made-up key');
  t.equal(refused.json().error, 'store_unavailable');
  const created = await fresh.gateway.adminApp.inject({
    method: 'POST',
    url: '/admin/v1/clients',
    headers: { authorization: `Bearer ${fresh.adminToken}` },
    payload: { name: 'x', scopes: ['sales'] },
  });
  t.equal(created.statusCode, 503, 'and no client is created under a key of its own');
  t.equal(await redis.command('GET', prefix + HASH_KEY), null, 'the fresh instance did not create a key');
  const errors = fresh.logs.lines.filter((l) => l.includes('client-secret hashing key missing'));
  t.equal(errors.length, 1, 'one loud line, naming the problem');
  t.match(errors[0], /GATEWAY_CLIENT_SECRET_HASH_KEY_FILE/);

  // The instance that still holds the key writes it back at its next re-read (here: a client creation).
  await createClient(a, ['sales']);
  t.equal(await redis.command('GET', prefix + HASH_KEY), key);
  await until(async () => (await fresh.gateway.adminApp.inject({ method: 'GET', url: '/readyz' })).statusCode === 200, 'the fresh instance adopts it', 5000);
  t.equal(await tokenStatus(fresh, client), 200, 'the old client authenticates on the fresh instance');
});

t.test('a key file: shared without the store, whatever the store lost', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hash-key-'));
  const file = join(dir, 'hash-key');
  writeFileSync(file, `${randomBytes(32).toString('hex')}\n`);
  const redis = await startRedisServer(t);
  const { prefix, all } = await instances(t, redis, 2, { client_secret_hash_key_file: file });
  const [a, b] = all as [TestGateway, TestGateway];
  const before = await createClient(a, ['sales']);
  t.equal(await tokenStatus(b, before), 200);
  t.equal(await redis.command('GET', prefix + HASH_KEY), null, 'the key is not copied into the store');
  await redis.command('FLUSHALL');
  const after = await createClient(b, ['sales']);
  t.equal(await tokenStatus(a, after), 200);

  const short = join(dir, 'short');
  writeFileSync(short, randomBytes(16).toString('hex'));
  t.throws(() => settingsFrom({ client_secret_hash_key_file: short }), {
    name: 'SettingsError',
    message: /GATEWAY_CLIENT_SECRET_HASH_KEY_FILE: .* holds 16 bytes; at least 32/,
  });
  writeFileSync(short, 'not a key!');
  t.throws(() => settingsFrom({ client_secret_hash_key_file: short }), { message: /must hold one key in hex or base64url/ });
});
