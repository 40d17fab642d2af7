// The one-time move from the first key layout to the Cluster layout, on the shared test Redis (one
// prefix per subtest): everything that matters moves, once, even with several instances starting
// together; old revocation marks are still honoured; a second start changes nothing.
import { randomUUID } from 'node:crypto';
import t, { type Test } from 'tap';
import { Redis } from 'ioredis';
import { RedisCredentialStore } from '../../gateway/store/redis-store.js';
import { deleteKeysWithPrefix, TEST_REDIS_URL, uniquePrefix } from '../helpers/redis.js';
import { clientRecord, serviceAccountRecord } from './contract.js';

interface OldData {
  prefix: string;
  clients: ReturnType<typeof clientRecord>[];
  accounts: ReturnType<typeof serviceAccountRecord>[];
  jti: string;
}

/** Writes what the first layout held: clients, accounts with usage, a used nonce, a revocation, meta, a session, a failure counter. */
async function writeOldLayout(redis: Redis, prefix: string, count: number): Promise<OldData> {
  const clients = Array.from({ length: count }, () => clientRecord());
  const accounts = Array.from({ length: count }, () => serviceAccountRecord());
  const jti = randomUUID();
  const batch = redis.multi();
  for (const c of clients) batch.set(`${prefix}client:${c.clientId}`, JSON.stringify(c)).sadd(`${prefix}clients`, c.clientId);
  for (const a of accounts) {
    const { lastUsedAt: _at, lastUsedIp: _ip, ...stored } = a;
    batch.set(`${prefix}sa:${a.id}`, a.accessId).set(`${prefix}sa-access:${a.accessId}`, JSON.stringify(stored)).sadd(`${prefix}sas`, a.id);
  }
  batch.set(`${prefix}sa-used:${accounts[0]!.accessId}`, JSON.stringify({ at: '2026-01-02T00:00:00.000Z', ip: '10.9.9.9' }));
  batch.set(`${prefix}nonce:${accounts[0]!.accessId}:old-nonce`, '1', 'EX', 300);
  batch.set(`${prefix}revoked:${jti}`, '1', 'EX', 600);
  batch.set(`${prefix}meta:jwt-signing-keys`, '{"keys":[]}');
  batch.set(`${prefix}session:s1`, 'session-data', 'EX', 600);
  batch.set(`${prefix}fail:oauth:address:1.2.3.4`, '3', 'EX', 250);
  await batch.exec();
  return { prefix, clients, accounts, jti };
}

async function setup(t: Test, count = 3) {
  const redis = new Redis(TEST_REDIS_URL);
  const prefix = uniquePrefix('migrate');
  const stores: RedisCredentialStore[] = [];
  t.teardown(async () => {
    await Promise.all(stores.map((s) => s.close()));
    redis.disconnect();
    await deleteKeysWithPrefix(prefix);
  });
  const data = await writeOldLayout(redis, prefix, count);
  const open = () => {
    const store = new RedisCredentialStore(TEST_REDIS_URL, prefix);
    stores.push(store);
    return store;
  };
  return { redis, data, open };
}

t.test('a store opened on the first layout moves it, and serves everything from the new one', async (t) => {
  const { redis, data, open } = await setup(t);
  const store = open();
  await store.connect();
  t.same(store.migration?.moved, { clients: 3, serviceAccounts: 3, nonces: 1, failureCounters: 1 });
  const byId =
    <T>(id: (x: T) => string) =>
    (x: T, y: T) =>
      id(x) < id(y) ? -1 : 1;
  const used = { ...data.accounts[0]!, lastUsedAt: '2026-01-02T00:00:00.000Z', lastUsedIp: '10.9.9.9' };
  const accounts = [used, ...data.accounts.slice(1)].sort(byId((a) => a.id));
  t.same(await store.listClients({ limit: 10 }), { items: [...data.clients].sort(byId((c) => c.clientId)), nextCursor: null });
  t.same(await store.listServiceAccounts({ limit: 10 }), { items: accounts, nextCursor: null }, 'accounts moved with their usage');
  t.same(await store.getServiceAccount(used.id), used);
  t.same(await store.findServiceAccountByAccessId(used.accessId), used);

  t.equal((await store.serviceAccountForRequest(used.accessId, 'old-nonce')).nonceUsed, true, 'a nonce used before the move still blocks its replay');
  t.equal(await store.consumeNonce(used.accessId, 'old-nonce', 300), 'used');
  const nonceTtl = await redis.ttl(`${data.prefix}sa:{${used.accessId}}:nonce:old-nonce`);
  t.ok(nonceTtl > 0 && nonceTtl <= 300, `and keeps what was left of its lifetime (${nonceTtl} s)`);

  const client = data.clients[0]!;
  t.same(
    await store.bearerState(client.clientId, data.jti, 'kid'),
    { client, revoked: true, signingKeyRetired: false },
    'an old revocation mark is still honoured',
  );
  t.same(await store.bearerState(client.clientId, randomUUID(), 'kid'), { client, revoked: false, signingKeyRetired: false });
  t.equal(await store.getMeta('jwt-signing-keys'), '{"keys":[]}', 'meta keys keep their names');
  t.equal(await store.getSession('s1'), 'session-data', 'sessions keep their names');
  // Seeded with 250 s left of its window: the moved counter keeps what was left (less the seconds
  // this test has taken), not a fresh 300 s window.
  const attempt = await store.reserveAttempt([{ key: 'oauth:address:1.2.3.4', max: 3 }], 300);
  t.equal(attempt.allowed, false, 'failure counters moved with their count...');
  t.ok(attempt.retryAfterSeconds <= 250 && attempt.retryAfterSeconds > 200, `...and what was left of their window (${attempt.retryAfterSeconds} s)`);

  const left = (await redis.keys(`${data.prefix}*`))
    .map((k) => k.slice(data.prefix.length))
    .filter((k) => !k.includes('{') && !k.startsWith('index:') && !k.startsWith('layout:'));
  t.same(left.sort(), ['meta:jwt-signing-keys', `revoked:${data.jti}`, 'session:s1'].sort(), 'no other key of the first layout is left');
  t.equal(await redis.get(`${data.prefix}layout:version`), '2');

  const again = open();
  await again.connect();
  t.same(again.migration?.moved, { clients: 0, serviceAccounts: 0, nonces: 0, failureCounters: 0 }, 'a second start moves nothing');
  t.same(
    await again.bearerState(client.clientId, data.jti, 'kid'),
    { client, revoked: true, signingKeyRetired: false },
    'and honours the old revocation marks too',
  );
  t.equal(await again.deleteServiceAccount(used.id), true, 'a moved account is deleted like any other');
  t.same(await again.serviceAccountForRequest(used.accessId, 'n'), { account: null, nonceUsed: false });
});

t.test('several instances starting together move each record exactly once', async (t) => {
  const { data, open } = await setup(t, 40);
  const stores = [open(), open(), open()];
  await Promise.all(stores.map((s) => s.connect()));
  const total = stores
    .map((s) => s.migration!.moved)
    .reduce((sum, m) => ({
      clients: sum.clients + m.clients,
      serviceAccounts: sum.serviceAccounts + m.serviceAccounts,
      nonces: sum.nonces + m.nonces,
      failureCounters: sum.failureCounters + m.failureCounters,
    }));
  t.same(total, { clients: 40, serviceAccounts: 40, nonces: 1, failureCounters: 1 });
  t.equal((await stores[0]!.listClients({ limit: 100 })).items.length, 40);
  t.equal((await stores[1]!.listServiceAccounts({ limit: 100 })).items.length, 40);
  for (const a of data.accounts) t.equal((await stores[2]!.serviceAccountForRequest(a.accessId, 'n')).account?.id, a.id);
});

t.test('a fresh store (no old keys) only records the layout version', async (t) => {
  const prefix = uniquePrefix('fresh');
  const store = new RedisCredentialStore(TEST_REDIS_URL, prefix);
  t.teardown(async () => {
    await store.close();
    await deleteKeysWithPrefix(prefix);
  });
  await store.connect();
  t.same(store.migration, { moved: { clients: 0, serviceAccounts: 0, nonces: 0, failureCounters: 0 }, legacyRevocationsUntil: 0 });
  const redis = new Redis(TEST_REDIS_URL);
  t.teardown(() => redis.disconnect());
  t.same(await redis.keys(`${prefix}*`), [`${prefix}layout:version`]);
});
