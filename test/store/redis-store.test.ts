// The store contract against the real shared test Redis (TEST_REDIS_URL), one key prefix per subtest.
import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { encodeCursor, positionOf } from '../../gateway/store/page-cursor.js';
import { RedisKeys } from '../../gateway/store/redis-keys.js';
import { RedisCredentialStore } from '../../gateway/store/redis-store.js';
import { until } from '../helpers/poll.js';
import { deleteKeysWithPrefix, TEST_REDIS_URL, uniquePrefix } from '../helpers/redis.js';
import { clientRecord, credentialStoreContract, serviceAccountRecord } from './contract.js';

async function keysWithPrefix(prefix: string): Promise<string[]> {
  const redis = new Redis(TEST_REDIS_URL);
  try {
    return await redis.keys(`${prefix}*`);
  } finally {
    redis.disconnect();
  }
}

credentialStoreContract(t, async (t) => {
  const prefix = uniquePrefix('store');
  const store = new RedisCredentialStore(TEST_REDIS_URL, prefix);
  await store.connect();
  t.teardown(async () => {
    await store.close();
    await deleteKeysWithPrefix(prefix);
  });
  return store;
});

t.test('every key the store writes carries its prefix, so instances with other prefixes do not see it', async (t) => {
  const prefix = uniquePrefix('store');
  const other = uniquePrefix('store');
  const store = new RedisCredentialStore(TEST_REDIS_URL, prefix);
  const neighbour = new RedisCredentialStore(TEST_REDIS_URL, other);
  await store.connect();
  await neighbour.connect();
  t.teardown(async () => {
    await store.close();
    await neighbour.close();
    await deleteKeysWithPrefix(prefix);
    await deleteKeysWithPrefix(other);
  });
  const client = clientRecord();
  await store.createClient(client);
  await store.compareAndSetMeta('m', null, 'v');
  t.equal(await neighbour.getClient(client.clientId), null);
  t.same(await neighbour.listClients({ limit: 10 }), { items: [], nextCursor: null });
  t.equal(await neighbour.getMeta('m'), null);
  const keys = await keysWithPrefix(prefix);
  t.ok(keys.length >= 3, `keys written: ${keys.join(', ')}`);
  await deleteKeysWithPrefix(prefix);
  t.same(await keysWithPrefix(prefix), [], 'cleanup leaves nothing behind');
});

t.test('two store objects on one prefix share state (two gateway instances)', async (t) => {
  const prefix = uniquePrefix('store');
  const one = new RedisCredentialStore(TEST_REDIS_URL, prefix);
  const two = new RedisCredentialStore(TEST_REDIS_URL, prefix);
  await one.connect();
  await two.connect();
  t.teardown(async () => {
    await one.close();
    await two.close();
    await deleteKeysWithPrefix(prefix);
  });
  const client = clientRecord();
  await one.createClient(client);
  t.same(await two.getClient(client.clientId), client);
  await two.revokeToken(client.clientId, 'jti-1', Math.floor(Date.now() / 1000) + 600);
  t.same(await one.bearerState(client.clientId, 'jti-1', 'kid'), { client, revoked: true, signingKeyRetired: false });
  await one.deleteClient(client.clientId);
  t.same(await two.bearerState(client.clientId, 'jti-2', 'kid'), { client: null, revoked: false, signingKeyRetired: false });
});

t.test('a change made through one store object reaches the watchers of another on the prefix, and only there', async (t) => {
  const prefix = uniquePrefix('store');
  const other = uniquePrefix('store');
  const writer = new RedisCredentialStore(TEST_REDIS_URL, prefix);
  const reader = new RedisCredentialStore(TEST_REDIS_URL, prefix);
  const neighbour = new RedisCredentialStore(TEST_REDIS_URL, other);
  await Promise.all([writer.connect(), reader.connect(), neighbour.connect()]);
  t.teardown(async () => {
    await Promise.all([writer.close(), reader.close(), neighbour.close()]);
    await deleteKeysWithPrefix(prefix);
    await deleteKeysWithPrefix(other);
  });
  let seen: string | null = null;
  let neighbourCalls = 0;
  reader.watchMeta('keys', () => void reader.getMeta('keys').then((v) => (seen = v)));
  neighbour.watchMeta('keys', () => neighbourCalls++);
  // The first call of a Redis watch comes once its subscription is in place.
  await until(() => neighbourCalls === 1, 'the neighbour is subscribed');
  await writer.compareAndSetMeta('keys', null, 'set-1');
  await until(() => seen === 'set-1', 'the other store object sees the change');
  await writer.compareAndSetMeta('keys', 'set-1', 'set-2');
  await until(() => seen === 'set-2', 'and the next one');
  await sleep(100);
  t.equal(neighbourCalls, 1, 'a watcher under another prefix hears nothing of it');
});

t.test('an index entry whose record is gone (a delete cut short) is skipped by lists and gets, and a second delete clears it', async (t) => {
  const prefix = uniquePrefix('store');
  const store = new RedisCredentialStore(TEST_REDIS_URL, prefix);
  const redis = new Redis(TEST_REDIS_URL);
  await store.connect();
  t.teardown(async () => {
    await store.close();
    redis.disconnect();
    await deleteKeysWithPrefix(prefix);
  });
  const keys = new RedisKeys(prefix);
  // Created in one millisecond: listed by id, descending.
  const [a, b] = [serviceAccountRecord(), serviceAccountRecord()].sort((x, y) => (x.id > y.id ? -1 : 1));
  const [c, d] = [clientRecord(), clientRecord()].sort((x, y) => (x.clientId > y.clientId ? -1 : 1));
  for (const account of [a!, b!]) await store.createServiceAccount(account);
  for (const client of [c!, d!]) await store.createClient(client);
  // What a crash between deleting the records and their index entries leaves behind.
  await redis.del(keys.account(a!.accessId), keys.client(c!.clientId));
  t.same(
    await store.listServiceAccounts({ limit: 1 }),
    { items: [], nextCursor: encodeCursor(positionOf(a!.id, a!.createdAt)) },
    'a page may come out short, and says more follow',
  );
  t.same(await store.listServiceAccounts({ limit: 10 }), { items: [b], nextCursor: null });
  t.same(await store.listClients({ limit: 10 }), { items: [d], nextCursor: null });
  t.equal(await store.getServiceAccount(a!.id), null);
  t.equal(await store.getClient(c!.clientId), null);
  t.equal(await store.deleteServiceAccount(a!.id), false, 'nothing left to delete...');
  t.equal(await store.deleteClient(c!.clientId), false);
  t.same(await redis.zrange(keys.accountIndex, 0, -1), [b!.id], '...but the index entry is gone');
  t.same([await redis.get(keys.accountPointer(a!.id)), await redis.get(keys.accountPointer(b!.id))], [null, b!.accessId], 'and its id pointer');
  t.same(await redis.zrange(keys.clientIndex, 0, -1), [d!.clientId]);
});
