// Nothing a failure leaves behind is invisible: a create answered 503 whose writes reach Redis later
// (held in a proxy, then released) is either listed or writes nothing, never a record that verifies
// unlisted; accounts are found and deleted by id or Access ID without the list index; and the
// repair puts every record back on its list, removes what has no record, and is safe to run twice
// or three times at once.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import t, { type Test } from 'tap';
import { serviceAccountIdFor } from '../../gateway/store/account-ids.js';
import { RedisKeys } from '../../gateway/store/redis-keys.js';
import { RedisCredentialStore } from '../../gateway/store/redis-store.js';
import { StoreUnavailableError, type ServiceAccountRecord } from '../../gateway/store/types.js';
import { startHoldingProxy, type HoldingProxy } from '../helpers/holding-proxy.js';
import { deleteKeysWithPrefix, TEST_REDIS, TEST_REDIS_URL, testRedisUrlVia, uniquePrefix } from '../helpers/redis.js';
import { clientRecord, serviceAccountRecord } from './contract.js';

const SETTLE = { settleMs: 50 };

interface Setup {
  prefix: string;
  keys: RedisKeys;
  /** Talks to Redis through the holding proxy, with a 200 ms command timeout. */
  held: RedisCredentialStore;
  proxy: HoldingProxy;
  /** Talks to Redis directly: the other gateway instances, the operator. */
  store: RedisCredentialStore;
  redis: Redis;
}

async function setUp(t: Test): Promise<Setup> {
  const prefix = uniquePrefix('repair');
  const proxy = await startHoldingProxy(t, TEST_REDIS.port, TEST_REDIS.host);
  const held = new RedisCredentialStore(testRedisUrlVia(proxy.port), prefix, { commandTimeoutMs: 200 });
  const store = new RedisCredentialStore(TEST_REDIS_URL, prefix);
  const redis = new Redis(TEST_REDIS_URL);
  await Promise.all([held.connect(), store.connect()]);
  t.teardown(async () => {
    await Promise.all([held.close(), store.close()]);
    redis.disconnect();
    await deleteKeysWithPrefix(prefix);
  });
  return { prefix, keys: new RedisKeys(prefix), held, proxy, store, redis };
}

/** Sends the held bytes, then waits until Redis has run them (a PING on the same connection comes back after). */
async function releaseAndSettle(setup: Setup): Promise<void> {
  setup.proxy.release();
  await setup.held.ping();
}

const alignedAccount = () => {
  const accessId = randomUUID();
  return serviceAccountRecord({ accessId, id: serviceAccountIdFor(accessId) });
};

/** What an operator and a caller see of an account. */
async function seen(store: RedisCredentialStore, account: ServiceAccountRecord) {
  const verifies = (await store.serviceAccountForRequest(account.accessId, randomUUID())).account !== null;
  const listed = (await store.listServiceAccounts({ limit: 100 })).items.some((a) => a.id === account.id);
  const byId = (await store.getServiceAccount(account.id)) !== null;
  return { verifies, listed, byId };
}

for (const [kind, make] of [
  ['an id in the slot of its Access ID', alignedAccount],
  ['an id of its own slot', () => serviceAccountRecord()],
] as const) {
  t.test(`service account (${kind}): a create answered 503 whose record lands later is listed and found by id`, async (t) => {
    const setup = await setUp(t);
    const account = make();
    setup.proxy.holdFrom((chunk) => chunk.includes(`sa:{${account.accessId}}`));
    await t.rejects(setup.held.createServiceAccount(account), StoreUnavailableError, 'answered 503');
    t.ok(setup.proxy.holding, "the record's write was held");
    t.same(await seen(setup.store, account), { verifies: false, listed: false, byId: false }, 'nothing verifies meanwhile');
    await releaseAndSettle(setup);
    t.same(await seen(setup.store, account), { verifies: true, listed: true, byId: true }, 'once written, it verifies and is listed and found');
    t.equal(await setup.store.deleteServiceAccount(account.id), true, 'and can be deleted');
    t.same(await seen(setup.store, account), { verifies: false, listed: false, byId: false });
  });

  t.test(`service account (${kind}): a repair between the 503 and the late write voids it, and the write then changes nothing`, async (t) => {
    const setup = await setUp(t);
    const account = make();
    setup.proxy.holdFrom((chunk) => chunk.includes(`sa:{${account.accessId}}`));
    await t.rejects(setup.held.createServiceAccount(account), StoreUnavailableError);
    t.equal(await setup.redis.zscore(setup.keys.accountIndex, account.id), String(Date.parse(account.createdAt)), 'the index entry came first');
    const report = await setup.store.repairIndexes(SETTLE);
    t.equal(report.serviceAccounts.indexRemoved, 1, 'the entry without a record is removed');
    t.equal(report.serviceAccounts.listed, 1);
    await releaseAndSettle(setup);
    t.same(await seen(setup.store, account), { verifies: false, listed: false, byId: false }, 'the late write is refused: nothing verifies, nothing to list');
    t.same(
      await setup.redis.keys(`${setup.prefix}*`).then((keys) => keys.filter((k) => !k.endsWith(':void') && !k.includes('layout'))),
      [],
      'nothing but the void marks is left',
    );
    const again = await setup.store.repairIndexes(SETTLE);
    t.same(
      [again.serviceAccounts.indexAdded, again.serviceAccounts.indexRemoved, again.serviceAccounts.pointersAdded, again.serviceAccounts.pointersRemoved],
      [0, 0, 0, 0],
      'a second repair finds nothing to do',
    );
  });
}

t.test('service account: a create whose first write (its index entry) lands late leaves only that entry, which lists skip and a repair removes', async (t) => {
  const setup = await setUp(t);
  const account = alignedAccount();
  setup.proxy.holdFrom();
  await t.rejects(setup.held.createServiceAccount(account), StoreUnavailableError);
  await releaseAndSettle(setup);
  t.equal(await setup.redis.zscore(setup.keys.accountIndex, account.id), String(Date.parse(account.createdAt)), 'the entry landed');
  t.same(await seen(setup.store, account), { verifies: false, listed: false, byId: false }, 'lists skip it');
  const report = await setup.store.repairIndexes(SETTLE);
  t.equal(report.serviceAccounts.indexRemoved, 1);
  t.equal(await setup.redis.zcard(setup.keys.accountIndex), 0);
  t.equal(await setup.store.createServiceAccount(alignedAccount()), true, 'other creates go on');
});

t.test('client: a create answered 503 whose record lands later is listed; one voided by a repair first writes nothing', async (t) => {
  const setup = await setUp(t);
  const late = clientRecord();
  setup.proxy.holdFrom((chunk) => chunk.includes(`client:{${late.clientId}}`));
  await t.rejects(setup.held.createClient(late), StoreUnavailableError);
  await releaseAndSettle(setup);
  t.same((await setup.store.listClients({ limit: 10 })).items, [late], 'the late record is listed');

  const voided = clientRecord();
  setup.proxy.holdFrom((chunk) => chunk.includes(`client:{${voided.clientId}}`));
  await t.rejects(setup.held.createClient(voided), StoreUnavailableError);
  const report = await setup.store.repairIndexes(SETTLE);
  t.same(report.clients, { records: 1, listed: 2, indexAdded: 0, indexRemoved: 1 });
  await releaseAndSettle(setup);
  t.equal(await setup.store.getClient(voided.clientId), null, 'the late write was refused');
  t.same((await setup.store.listClients({ limit: 10 })).items, [late]);
  t.equal(await setup.store.createClient(voided), false, 'the voided id stays refused');
});

t.test('without the list index: accounts are found and deleted by id or Access ID, and a repair lists every record again', async (t) => {
  const setup = await setUp(t);
  const { store, redis, keys } = setup;
  const [gone, kept, unaligned] = [alignedAccount(), alignedAccount(), serviceAccountRecord()];
  const clients = [clientRecord(), clientRecord()];
  for (const account of [gone, kept, unaligned]) t.equal(await store.createServiceAccount(account), true);
  for (const client of clients) t.equal(await store.createClient(client), true);
  // As a store written by an older version holds an account: its record, and the old id map.
  const older = serviceAccountRecord();
  const { lastUsedAt: _a, lastUsedIp: _b, ...stored } = older;
  await redis.set(keys.account(older.accessId), JSON.stringify(stored));
  await redis.hset(keys.accessIdsById, older.id, older.accessId);

  await redis.del(keys.accountIndex, keys.clientIndex);
  t.same((await store.listServiceAccounts({ limit: 10 })).items, [], 'no list shows them');
  t.same(await store.getServiceAccount(kept.id), kept, 'found by id');
  t.same(await store.getServiceAccount(older.id), older, 'an older account by the old id map');
  t.equal(await store.deleteServiceAccount(gone.id), true, 'deleted by id');
  t.same(await seen(store, gone), { verifies: false, listed: false, byId: false });

  // The unaligned account's pointer lost too (its own slot, on another master of a Cluster).
  await redis.del(keys.accountPointer(unaligned.id));
  t.equal(await store.getServiceAccount(unaligned.id), null, 'its id finds nothing now...');
  t.same(await store.findServiceAccountByAccessId(unaligned.accessId), unaligned, '...its Access ID still does');
  const report = await store.repairIndexes(SETTLE);
  t.same(
    report.serviceAccounts,
    { records: 3, listed: 3, indexAdded: 3, indexRemoved: 0, pointersAdded: 2, pointersRemoved: 0 },
    "every record listed again; the lost pointer and the older account's made",
  );
  t.same(report.clients, { records: 2, listed: 2, indexAdded: 2, indexRemoved: 0 });
  t.equal(report.nodesScanned, 1);
  t.same((await store.listServiceAccounts({ limit: 10 })).items.map((a) => a.id).sort(), [kept.id, unaligned.id, older.id].sort());
  t.same((await store.listClients({ limit: 10 })).items.length, 2);
  t.same(await store.getServiceAccount(unaligned.id), unaligned, 'found by id again');
  t.equal(await store.deleteServiceAccountByAccessId(older.accessId), older.id, 'deleted by Access ID');
  t.equal(await redis.hexists(keys.accessIdsById, older.id), 0, 'with its old id map entry');
  const again = await store.repairIndexes(SETTLE);
  t.same(
    [again.serviceAccounts.indexAdded, again.serviceAccounts.pointersAdded, again.clients.indexAdded, again.serviceAccounts.indexRemoved],
    [0, 0, 0, 0],
    'idempotent',
  );
});

t.test('several repairs at once, in small batches: each record listed, each stray entry removed once', async (t) => {
  const setup = await setUp(t);
  const { store, redis, keys } = setup;
  const accounts = Array.from({ length: 20 }, alignedAccount);
  for (const account of accounts) await store.createServiceAccount(account);
  const strays = Array.from({ length: 7 }, () => `sa_${randomUUID().replace(/-/g, '').slice(0, 20)}`);
  await redis.zadd(keys.accountIndex, ...strays.flatMap((id) => [0, id]));
  await redis.zrem(keys.accountIndex, ...accounts.slice(0, 9).map((a) => a.id));
  const reports = await Promise.all([1, 2, 3].map(() => store.repairIndexes({ ...SETTLE, batchSize: 3 })));
  const total = (pick: (r: (typeof reports)[number]) => number) => reports.reduce((sum, r) => sum + pick(r), 0);
  t.equal(
    total((r) => r.serviceAccounts.indexAdded),
    9,
    'the 9 unlisted records added once in all',
  );
  t.equal(
    total((r) => r.serviceAccounts.indexRemoved),
    7,
    'the 7 stray entries removed once in all',
  );
  t.ok(
    reports.every((r) => r.serviceAccounts.records === 20),
    'each repair saw every record',
  );
  t.same((await redis.zrange(keys.accountIndex, 0, -1)).sort(), accounts.map((a) => a.id).sort());
  for (const account of accounts.slice(0, 3)) t.same(await seen(store, account), { verifies: true, listed: true, byId: true });
});

t.test('a repair runs while requests go on: its SCAN and their scripts share the connection and each gets its own answer', async (t) => {
  // ioredis copies a client's command functions into the auto-pipeline a command opens: a SCAN sent
  // through the store's routing must not put routed functions there (they looped forever).
  const setup = await setUp(t);
  const account = alignedAccount();
  await setup.store.createServiceAccount(account);
  const [report, ...uses] = await Promise.all([
    setup.store.repairIndexes(SETTLE),
    ...Array.from({ length: 5 }, (_, i) => setup.store.consumeNonce(account.accessId, `n${i}`, 60)),
  ]);
  t.same(uses, ['fresh', 'fresh', 'fresh', 'fresh', 'fresh']);
  t.equal(report.serviceAccounts.records, 1);
});

t.test('entries an older version scored 0 (listed by id) get their creation time, so lists put them in place', async (t) => {
  const setup = await setUp(t);
  const older = clientRecord({ createdAt: '2026-01-01T00:00:00.000Z' });
  const newer = clientRecord({ createdAt: '2026-03-01T00:00:00.000Z' });
  const account = alignedAccount();
  for (const client of [older, newer]) await setup.store.createClient(client);
  await setup.store.createServiceAccount(account);
  for (const [index, id] of [
    [setup.keys.clientIndex, older.clientId],
    [setup.keys.clientIndex, newer.clientId],
    [setup.keys.accountIndex, account.id],
  ] as const)
    await setup.redis.zadd(index, 0, id);
  const report = await setup.store.repairIndexes(SETTLE);
  t.same([report.clients.indexRemoved, report.serviceAccounts.indexRemoved], [0, 0], 'nothing removed');
  t.equal(await setup.redis.zscore(setup.keys.clientIndex, newer.clientId), String(Date.parse(newer.createdAt)));
  t.equal(await setup.redis.zscore(setup.keys.accountIndex, account.id), String(Date.parse(account.createdAt)));
  t.same(
    (await setup.store.listClients({ limit: 10 })).items.map((c) => c.clientId),
    [newer.clientId, older.clientId],
    'newest first',
  );
});

t.test('a repair stops when its store closes', async (t) => {
  const setup = await setUp(t);
  await setup.redis.zadd(setup.keys.accountIndex, 0, 'sa_00000000000000000000');
  const repair = setup.held.repairIndexes({ settleMs: 300 });
  await setup.held.close();
  await t.rejects(repair, StoreUnavailableError);
  t.equal(await setup.redis.zscore(setup.keys.accountIndex, 'sa_00000000000000000000'), '0', 'it removed nothing');
});
