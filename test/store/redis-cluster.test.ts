// The store contract on a real 3-master Redis Cluster started for this file: every operation must
// keep its keys in one slot (ioredis and Redis answer CROSSSLOT otherwise, which the store reports
// as unavailable and the contract fails), and credentials must spread over every master.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { Cluster } from 'ioredis';
import { serviceAccountIdFor } from '../../gateway/store/account-ids.js';
import { RedisCredentialStore } from '../../gateway/store/redis-store.js';
import { OldLayoutOnClusterError } from '../../gateway/store/redis-layout-migration.js';
import { openStore } from '../../gateway/store/open-store.js';
import { uniquePrefix } from '../helpers/redis.js';
import { until } from '../helpers/poll.js';
import { command, countKeys, startCluster } from '../helpers/redis-topology.js';
import { clientRecord, credentialStoreContract, serviceAccountRecord } from './contract.js';
import { KEY_SET_META, storeOlderShapes } from './older-records.js';

const cluster = await startCluster(t);

function clusterStore(prefix: string): RedisCredentialStore {
  return new RedisCredentialStore({ redisClusterNodes: cluster.nodes }, prefix, { commandTimeoutMs: 1000 });
}

credentialStoreContract(t, async (t) => {
  const store = clusterStore(uniquePrefix('cluster'));
  await store.connect();
  t.teardown(() => store.close());
  return store;
});

t.test('the keys of 200 credentials spread over all three masters, and every operation on them works', async (t) => {
  const prefix = uniquePrefix('spread');
  const store = clusterStore(prefix);
  await store.connect();
  t.teardown(() => store.close());
  const accounts = Array.from({ length: 100 }, () => serviceAccountRecord());
  const clients = Array.from({ length: 100 }, () => clientRecord());
  for (const a of accounts) t.equal(await store.createServiceAccount(a), true);
  for (const c of clients) t.equal(await store.createClient(c), true);
  for (const [i, a] of accounts.entries()) {
    t.equal(await store.consumeNonce(a.accessId, `n-${i}`, 60), 'fresh');
    t.equal((await store.serviceAccountForRequest(a.accessId, `n-${i}`)).nonceUsed, true);
  }
  await store.recordServiceAccountUse(
    accounts.map((a) => ({ accessId: a.accessId, at: '2026-04-01T00:00:00.000Z', ip: '10.0.0.1', fingerprint: a.fingerprint })),
  );
  for (const c of clients) {
    await store.revokeToken(c.clientId, 'jti', Math.floor(Date.now() / 1000) + 600);
    t.same(await store.bearerState(c.clientId, 'jti', 'kid'), { client: c, revoked: true, signingKeyRetired: false });
  }
  const perNode = await Promise.all(cluster.servers.map((s) => countKeys(s.port, prefix)));
  t.comment(`keys per master: ${perNode.join(', ')}`);
  // 100 accounts x 4 keys + 100 clients x 2 keys, hashed by credential: each master holds a fair
  // share (about a third, 200); one global tag would put every record on one master.
  for (const count of perNode) t.ok(count > 100, `every master holds many credential keys (${count})`);
  t.equal(
    perNode.reduce((a, b) => a + b, 0),
    100 * 4 + 100 * 2 + 2 + 1,
    'records, usage, nonces, id pointers, revocations, 2 indexes, the layout version, nothing else',
  );
  // A retired signing key's mark is in a slot of its own, read in the same call as each client's keys.
  await store.retireSigningKey('retired-kid', Math.floor(Date.now() / 1000) + 600);
  for (const c of clients) t.same(await store.bearerState(c.clientId, 'jti', 'retired-kid'), { client: c, revoked: true, signingKeyRetired: true });

  const listed = [];
  let cursor: string | undefined;
  for (let page = 0; page < 10; page++) {
    const result = await store.listServiceAccounts({ limit: 30, cursor });
    listed.push(...result.items);
    if (result.nextCursor === null) break;
    cursor = result.nextCursor;
  }
  t.equal(listed.length, 100, 'paging reads every account from every master');
  t.ok(
    listed.every((a) => a.lastUsedIp === '10.0.0.1'),
    'with its usage',
  );
  t.equal((await store.listClients({ limit: 1000 })).items.length, 100);
  for (const a of accounts.slice(0, 20)) t.equal(await store.deleteServiceAccount(a.id), true);
  for (const c of clients.slice(0, 20)) t.equal(await store.deleteClient(c.clientId), true);
  t.equal((await store.listServiceAccounts({ limit: 1000 })).items.length, 80);
  t.equal((await store.listClients({ limit: 1000 })).items.length, 80);
});

t.test('without the list indexes: accounts found and deleted by id or Access ID; a repair scans every master and lists every record again', async (t) => {
  const prefix = uniquePrefix('repair');
  const store = clusterStore(prefix);
  await store.connect();
  t.teardown(() => store.close());
  const raw = new Cluster(cluster.nodes, { lazyConnect: true });
  t.teardown(() => raw.disconnect());
  await raw.connect();
  const accounts = Array.from({ length: 30 }, () => {
    const accessId = randomUUID();
    return serviceAccountRecord({ accessId, id: serviceAccountIdFor(accessId) });
  });
  const clients = Array.from({ length: 30 }, () => clientRecord());
  for (const a of accounts) await store.createServiceAccount(a);
  for (const c of clients) await store.createClient(c);
  await raw.del(`${prefix}index:sas`);
  await raw.del(`${prefix}index:clients`);
  t.same((await store.listServiceAccounts({ limit: 100 })).items, [], 'no list shows them');
  t.same(await store.getServiceAccount(accounts[0]!.id), accounts[0], "found by id: the id key shares the record's slot");
  t.equal(await store.deleteServiceAccount(accounts[0]!.id), true, 'deleted by id');
  t.equal(await store.deleteServiceAccountByAccessId(accounts[1]!.accessId), accounts[1]!.id, 'deleted by Access ID');
  const report = await store.repairIndexes({ settleMs: 50, batchSize: 20 });
  t.equal(report.nodesScanned, 3, 'every master scanned');
  t.same(report.serviceAccounts, { records: 28, listed: 28, indexAdded: 28, indexRemoved: 0, pointersAdded: 0, pointersRemoved: 0 });
  t.same(report.clients, { records: 30, listed: 30, indexAdded: 30, indexRemoved: 0 });
  t.equal((await store.listServiceAccounts({ limit: 100 })).items.length, 28);
  t.equal((await store.listClients({ limit: 100 })).items.length, 30);
});

t.test('a multi-key command across credentials is refused by the Cluster, as the store never sends one', async (t) => {
  // Guards the premise of this file: CROSSSLOT is really raised here, so the contract above proves something.
  const raw = new Cluster(cluster.nodes, { lazyConnect: true });
  t.teardown(() => raw.disconnect());
  await raw.connect();
  const prefix = uniquePrefix('crossslot');
  await t.rejects(raw.mget(`${prefix}sa:{a}`, `${prefix}sa:{b}`), /CROSSSLOT/);
  t.same(await raw.mget(`${prefix}sa:{a}`, `${prefix}sa:{a}:used`), [null, null], 'keys of one credential share a slot');
});

t.test('openStore opens a Cluster store from the settings', async (t) => {
  const store = await openStore({ redisUrl: undefined, redisClusterNodes: cluster.nodes, redisKeyPrefix: uniquePrefix('open'), embeddedStorePath: undefined });
  t.teardown(() => store.close());
  t.equal(store.kind, 'redis');
  const client = clientRecord();
  t.equal(await store.createClient(client), true);
  t.same(await store.getClient(client.clientId), client);
});

t.test('keys of the first layout on a Cluster: the store refuses to open and names them', async (t) => {
  const prefix = uniquePrefix('old');
  const raw = new Cluster(cluster.nodes, { lazyConnect: true });
  t.teardown(() => raw.disconnect());
  await raw.connect();
  await raw.sadd(`${prefix}sas`, 'some-id');
  const store = clusterStore(prefix);
  t.teardown(() => store.close());
  const error = await store.connect().catch((e: unknown) => e);
  t.type(error, OldLayoutOnClusterError);
  t.match((error as Error).message, `${prefix}sas`);
  t.match((error as Error).message, 'REDIS_URL');
  await t.rejects(store.ping(), { name: 'StoreUnavailableError' }, 'and stays unavailable');
});

t.test('a Cluster holding version-2 data: records in older shapes are upgraded on every master, one key per script', async (t) => {
  const prefix = uniquePrefix('older');
  const writer = clusterStore(prefix);
  t.teardown(() => writer.close());
  await writer.connect();
  const clients = Array.from({ length: 30 }, () => clientRecord());
  const accounts = Array.from({ length: 30 }, () => serviceAccountRecord());
  for (const c of clients) t.equal(await writer.createClient(c), true);
  for (const a of accounts) t.equal(await writer.createServiceAccount(a), true);
  const key = (kid: string, createdAt: string) => ({ kid, alg: 'EdDSA', privateJwk: { kty: 'OKP', d: kid }, publicJwk: { kty: 'OKP' }, createdAt });
  const [active, previous] = [key('active', '2026-02-01T00:00:00.000Z'), key('previous', '2026-01-01T00:00:00.000Z')];
  const raw = new Cluster(cluster.nodes, { lazyConnect: true });
  t.teardown(() => raw.disconnect());
  await raw.connect();
  await storeOlderShapes(raw, prefix, { clients, accounts, keySet: JSON.stringify({ active, previous }) });
  const perNode = await Promise.all(cluster.servers.map((s) => countKeys(s.port, prefix)));
  for (const count of perNode) t.ok(count > 10, `every master holds records (${count} keys)`);

  const store = clusterStore(prefix);
  t.teardown(() => store.close());
  await store.connect();
  t.same(store.migration?.upgraded, { clients: 30, serviceAccounts: 30, signingKeySets: 1 });
  t.equal(await raw.get(`${prefix}layout:version`), '5');
  // As the older readers read them: no resource server, no expiry, the top-level key the only one.
  for (const c of clients) t.same(await store.getClient(c.clientId), c);
  for (const a of accounts) t.same(await store.getServiceAccount(a.id), a);
  t.same(JSON.parse((await store.getMeta(KEY_SET_META))!), { active, retired: [{ ...previous, retiredAt: active.createdAt }], withdrawn: [] });
});

t.test('a watcher whose subscriber connection is cut opens another and re-reads: a change made meanwhile is not missed', async (t) => {
  const prefix = uniquePrefix('watch');
  const watched = clusterStore(prefix);
  const writer = clusterStore(prefix);
  await Promise.all([watched.connect(), writer.connect()]);
  t.teardown(() => Promise.all([watched.close(), writer.close()]));
  let seen: string | null = null;
  let calls = 0;
  watched.watchMeta('keys', () => {
    calls++;
    watched.getMeta('keys').then(
      (v) => (seen = v),
      () => {},
    );
  });
  await until(() => calls === 1, 'the watch is subscribed', 3000);
  await writer.compareAndSetMeta('keys', null, 'v1');
  await until(() => seen === 'v1', 'a change on another node is heard (PUBLISH reaches every node)', 3000);
  // Cut every subscriber connection of the cluster, then change the value at once.
  let killed = 0;
  for (const server of cluster.servers) killed += Number(await command(server.port, 'CLIENT', 'KILL', 'TYPE', 'pubsub'));
  t.ok(killed >= 1, `the watcher's subscriber connection was cut (${killed} cut)`);
  await writer.compareAndSetMeta('keys', 'v1', 'v2');
  await until(() => seen === 'v2', 'the watcher re-reads once subscribed again', 5000);
  await writer.compareAndSetMeta('keys', 'v2', 'v3');
  await until(() => seen === 'v3', 'and hears later changes', 3000);
  t.equal(seen, 'v3');
});

t.test('a lost master holding the retired-key mark: bearerState still answers for clients elsewhere, the mark unread (null)', async (t) => {
  // Last in this file: a master hangs for well under the cluster's node timeout (2 s), so no
  // failover follows and the cluster is whole again when it resumes.
  const prefix = uniquePrefix('mark');
  const store = new RedisCredentialStore({ redisClusterNodes: cluster.nodes }, prefix, { commandTimeoutMs: 300 });
  await store.connect();
  t.teardown(() => store.close());
  const kid = 'active-kid';
  const markMaster = await masterOf(`${prefix}signing-key-retired:${kid}`);
  const clients = Array.from({ length: 12 }, () => clientRecord());
  for (const c of clients) await store.createClient(c);
  const homes = await Promise.all(clients.map((c) => masterOf(`${prefix}client:{${c.clientId}}`)));
  const elsewhere = clients.find((_c, i) => homes[i] !== markMaster)!;
  const beside = clients.find((_c, i) => homes[i] === markMaster);
  t.ok(elsewhere, 'a client on another master');

  const hung = cluster.servers.find((s) => s.port === markMaster)!;
  hung.child.kill('SIGSTOP');
  try {
    t.same(
      await store.bearerState(elsewhere.clientId, 'jti', kid),
      { client: elsewhere, revoked: false, signingKeyRetired: null },
      'the client answers; the mark is unread, not "not retired"',
    );
    if (beside)
      await t.rejects(store.bearerState(beside.clientId, 'jti', kid), { name: 'NodeUnavailableError' }, 'a client on the lost master fails as before');
  } finally {
    hung.child.kill('SIGCONT');
  }
  await until(
    async () => (await store.bearerState(elsewhere.clientId, 'jti', kid).catch(() => null))?.signingKeyRetired === false,
    'the mark is read again once the master answers',
    10_000,
  );
});

/** The port of the master that serves a key's slot. */
async function masterOf(key: string): Promise<number> {
  const slot = Number(await command(cluster.nodes[0]!.port, 'CLUSTER', 'KEYSLOT', key));
  const ranges = (await command(cluster.nodes[0]!.port, 'CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
  const range = ranges.find(([from, to]) => slot >= from && slot <= to)!;
  return Number(range[2][1]);
}

t.test('Bearer state from memory on a Cluster: a channel per master; a change on any master is seen by the other instance at once', async (t) => {
  const prefix = uniquePrefix('cluster-cache');
  const open = async () => {
    const store = new RedisCredentialStore({ redisClusterNodes: cluster.nodes }, prefix, { commandTimeoutMs: 1000, cacheLeaseMs: 100 });
    await store.connect();
    t.teardown(() => store.close());
    return store;
  };
  const [a, b] = [await open(), await open()];
  const mgets = async () => {
    let calls = 0;
    for (const server of cluster.servers)
      calls += Number(/cmdstat_mget:calls=(\d+)/.exec(String(await command(server.port, 'INFO', 'commandstats')))?.[1] ?? 0);
    return calls;
  };
  // Enough clients that every master holds some.
  const clients = Array.from({ length: 30 }, () => clientRecord());
  for (const client of clients) t.equal(await a.createClient(client), true);
  for (const server of cluster.servers) t.ok((await countKeys(server.port, `${prefix}client:`)) > 0, `master ${server.port} holds some of them`);
  for (const client of clients) await b.bearerState(client.clientId, 'jti', 'kid');
  await until(
    async () => {
      const before = await mgets();
      for (const client of clients) await b.bearerState(client.clientId, 'jti', 'kid');
      return (await mgets()) === before;
    },
    'every client answered from memory',
    10_000,
  );
  for (const client of clients) {
    await a.deleteClient(client.clientId);
    t.equal((await b.bearerState(client.clientId, 'jti', 'kid')).client, null, `deleted ${client.clientId}: refused by the other instance at once`);
  }
});
