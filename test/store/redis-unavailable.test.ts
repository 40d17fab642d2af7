// When Redis cannot be reached, every store operation fails with StoreUnavailableError (the
// pipeline turns it into 503) instead of hanging or queueing.
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { RedisCredentialStore } from '../../gateway/store/redis-store.js';
import { openStore } from '../../gateway/store/open-store.js';
import { StoreUnavailableError } from '../../gateway/store/types.js';
import { startTcpForwarder } from '../helpers/http.js';
import { until } from '../helpers/poll.js';
import { deleteKeysWithPrefix, TEST_REDIS, TEST_REDIS_URL, testRedisUrlVia, uniquePrefix } from '../helpers/redis.js';
import { clientRecord } from './contract.js';

t.test('connecting to a closed port fails with StoreUnavailableError', async (t) => {
  const store = new RedisCredentialStore('redis://127.0.0.1:1', uniquePrefix('down'));
  t.teardown(() => store.close());
  await t.rejects(store.connect(), StoreUnavailableError);
  await t.rejects(store.ping(), StoreUnavailableError);
  await t.rejects(store.getClient('x'), StoreUnavailableError);
  await t.rejects(store.bearerState('x', 'y', 'kid'), StoreUnavailableError);
  await t.rejects(store.serviceAccountForRequest('x', 'n'), StoreUnavailableError);
  await t.rejects(store.consumeNonce('x', 'n', 300), StoreUnavailableError);
  await t.rejects(store.reserveAttempt([{ key: 'k', max: 1 }], 60), StoreUnavailableError);
  await t.rejects(store.releaseAttempt(['k']), StoreUnavailableError);
  await t.rejects(store.recordServiceAccountUse([{ accessId: 'a', at: 'now', ip: '1.1.1.1', fingerprint: 'SHA256:x' }]), StoreUnavailableError);
});

t.test('openStore refuses to start on an unreachable Redis', async (t) => {
  await t.rejects(openStore({ redisUrl: 'redis://127.0.0.1:1', redisKeyPrefix: uniquePrefix('down'), embeddedStorePath: undefined }), StoreUnavailableError);
});

t.test('a store whose Redis goes away fails its operations', async (t) => {
  const prefix = uniquePrefix('down');
  const forwarder = await startTcpForwarder(t, TEST_REDIS.port, TEST_REDIS.host);
  const store = new RedisCredentialStore(testRedisUrlVia(forwarder.port), prefix);
  await store.connect();
  t.teardown(async () => {
    await store.close();
    await deleteKeysWithPrefix(prefix);
  });
  const client = clientRecord();
  t.equal(await store.createClient(client), true);
  await forwarder.cut();
  await t.rejects(store.getClient(client.clientId), StoreUnavailableError);
  await t.rejects(store.bearerState(client.clientId, 'j', 'kid'), StoreUnavailableError);
  await t.rejects(store.ping(), StoreUnavailableError);
  await t.rejects(store.compareAndSetMeta('m', null, 'v'), StoreUnavailableError);
});

t.test('a watcher survives an outage of its connection and re-reads once back: a change made meanwhile is not missed', async (t) => {
  const prefix = uniquePrefix('down');
  const forwarder = await startTcpForwarder(t, TEST_REDIS.port, TEST_REDIS.host);
  const watched = new RedisCredentialStore(testRedisUrlVia(forwarder.port), prefix);
  const writer = new RedisCredentialStore(TEST_REDIS_URL, prefix);
  await watched.connect();
  await writer.connect();
  t.teardown(async () => {
    await watched.close();
    await writer.close();
    await deleteKeysWithPrefix(prefix);
  });
  let seen: string | null = null;
  let calls = 0;
  watched.watchMeta('keys', () => {
    calls++;
    watched.getMeta('keys').then(
      (v) => (seen = v),
      () => {},
    );
  });
  await until(() => calls === 1, 'the watch is subscribed');
  await writer.compareAndSetMeta('keys', null, 'before');
  await until(() => seen === 'before', 'a change while connected');

  forwarder.pause();
  // Published while the watcher's connection is down: this message is lost.
  await writer.compareAndSetMeta('keys', 'before', 'during');
  await sleep(300);
  t.equal(seen, 'before', 'nothing can be heard during the outage');
  forwarder.resume();
  await until(() => seen === 'during', 'the watcher re-reads once reconnected', 5000);
  await writer.compareAndSetMeta('keys', 'during', 'after');
  await until(() => seen === 'after', 'and hears later changes again');
});

t.test('an unreachable Cluster or Sentinel fails to open with StoreUnavailableError, without hanging', async (t) => {
  const closed = [{ host: '127.0.0.1', port: 1 }];
  const started = Date.now();
  await t.rejects(
    openStore({ redisUrl: undefined, redisClusterNodes: closed, redisKeyPrefix: uniquePrefix('down'), embeddedStorePath: undefined }),
    StoreUnavailableError,
  );
  await t.rejects(
    openStore({
      redisUrl: undefined,
      redisSentinels: closed,
      redisSentinelMaster: 'gateway',
      redisKeyPrefix: uniquePrefix('down'),
      embeddedStorePath: undefined,
    }),
    StoreUnavailableError,
  );
  t.ok(Date.now() - started < 10_000, `both refused in ${Date.now() - started} ms`);
});
