// The store contract on a master found through Sentinel (one master, one replica, three sentinels
// started for this file), then the store across a failover: writes go to the new master at once.
import t from 'tap';
import { RedisCredentialStore } from '../../gateway/store/redis-store.js';
import { until } from '../helpers/poll.js';
import { uniquePrefix } from '../helpers/redis.js';
import { command, startSentinels, waitFor } from '../helpers/redis-topology.js';
import { clientRecord, credentialStoreContract, serviceAccountRecord } from './contract.js';

const topology = await startSentinels(t);

function sentinelStore(prefix: string): RedisCredentialStore {
  return new RedisCredentialStore({ redisSentinels: topology.sentinels, redisSentinelMaster: topology.masterName }, prefix, { commandTimeoutMs: 1000 });
}

credentialStoreContract(t, async (t) => {
  const store = sentinelStore(uniquePrefix('sentinel'));
  await store.connect();
  t.teardown(() => store.close());
  return store;
});

t.test('across a failover: the store follows the new master, keeps its data and its watchers', async (t) => {
  const prefix = uniquePrefix('failover');
  const store = sentinelStore(prefix);
  const writer = sentinelStore(prefix);
  await Promise.all([store.connect(), writer.connect()]);
  t.teardown(() => Promise.all([store.close(), writer.close()]));
  const before = serviceAccountRecord();
  t.equal(await store.createServiceAccount(before), true);
  t.equal(await store.consumeNonce(before.accessId, 'before', 300), 'fresh');
  let seen: string | null = null;
  store.watchMeta(
    'keys',
    () =>
      void store.getMeta('keys').then(
        (v) => (seen = v),
        () => {},
      ),
  );
  await writer.compareAndSetMeta('keys', null, 'v1');
  await until(() => seen === 'v1', 'the watcher hears v1', 2000);
  // The replica has everything before the failover starts (a failover loses unreplicated writes).
  await waitFor('the replica caught up', async () => (await command(topology.replica.port, 'GET', `${prefix}meta:keys`)) === 'v1', 5000);

  const oldMaster = await topology.masterPort();
  t.equal(await command(topology.sentinelServers[0]!.port, 'SENTINEL', 'FAILOVER', topology.masterName), 'OK');
  const started = Date.now();
  await waitFor('the sentinels name a new master', async () => (await topology.masterPort()) !== oldMaster, 15_000);
  // Writes succeed again once the store reconnected to the new master. Until it hears of the switch
  // the old master (not yet a replica) may still take one, which Sentinel then drops: the first
  // write that lands on the new master is the one that counts.
  let attempts = 0;
  let client = clientRecord();
  await waitFor(
    'a write lands on the new master',
    async () => {
      attempts++;
      client = clientRecord();
      if (!(await store.createClient(client).catch(() => false))) return false;
      return (await command(await topology.masterPort(), 'EXISTS', `${prefix}client:{${client.clientId}}`)) === 1;
    },
    15_000,
  );
  t.comment(`store writes to the new master ${Date.now() - started} ms after SENTINEL FAILOVER (${attempts} attempts)`);
  t.same(await store.getClient(client.clientId), client);

  t.same(await store.getServiceAccount(before.id), before, 'an account created before still exists');
  t.equal(await store.consumeNonce(before.accessId, 'before', 300), 'used', 'a nonce used before still blocks');
  await waitFor(
    'the other store object reaches the new master too',
    async () => {
      const id = `probe-${attempts++}`;
      await writer.putSession(id, 'x', 60);
      return (await command(await topology.masterPort(), 'EXISTS', `${prefix}session:${id}`)) === 1;
    },
    15_000,
  );
  t.equal(await writer.compareAndSetMeta('keys', 'v1', 'v2'), true);
  await until(() => seen === 'v2', 'the watcher hears changes made on the new master', 5000);
});
