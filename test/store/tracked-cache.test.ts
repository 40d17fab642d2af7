// The Bearer path's cache (gateway/store/redis/tracked-cache.ts) on a Redis of the test's own: a
// value is used until Redis reports a write to its key, never kept when the write raced with its
// read, not used once the heartbeat stops proving the channel current (a partition), and emptied
// by a reconnection and by FLUSHALL.
import { Redis } from 'ioredis';
import t, { type Test } from 'tap';
import { TrackedCache } from '../../gateway/store/redis/tracked-cache.js';
import { startHoldingProxy } from '../helpers/holding-proxy.js';
import { until } from '../helpers/poll.js';
import { startRedisServer } from '../helpers/redis-server.js';

const LEASE_MS = 100;
const PREFIX = 'tc:client:';

const redis = await startRedisServer(t);
const writer = new Redis(redis.url);
t.teardown(() => writer.disconnect());

async function openCache(t: Test, port = redis.port): Promise<TrackedCache> {
  const client = new Redis({ host: '127.0.0.1', port, lazyConnect: true, enableOfflineQueue: false, commandTimeout: 500 });
  client.on('error', () => {});
  await client.connect();
  const cache = new TrackedCache(client, [PREFIX], LEASE_MS);
  t.teardown(() => {
    cache.close();
    client.disconnect();
  });
  await until(() => cache.currentAsOf() !== undefined, 'the channel is set up', 5000);
  return cache;
}

function keep(cache: TrackedCache, key: string, value: unknown): void {
  cache.finishRead(cache.startRead([key]), [value]);
}

/** Until the cache is proven current as of now: every invalidation of a write answered before now has come in. */
async function caughtUp(cache: TrackedCache): Promise<void> {
  const now = performance.now();
  await until(() => (cache.currentAsOf() ?? 0) >= now, 'a heartbeat sent after now is answered', 5000);
}

t.test('a value is used until Redis reports a write to its key; other keys are untouched', async (t) => {
  const cache = await openCache(t);
  keep(cache, `${PREFIX}{a}`, 'record a');
  keep(cache, `${PREFIX}{b}`, 'record b');
  await caughtUp(cache);
  t.same(cache.lookup([`${PREFIX}{a}`, `${PREFIX}{b}`]), ['record a', 'record b']);
  t.equal(cache.lookup([`${PREFIX}{a}`, `${PREFIX}{c}`]), undefined, 'one key not cached: read them all');
  await writer.set(`${PREFIX}{a}`, 'changed');
  await caughtUp(cache);
  t.equal(cache.lookup([`${PREFIX}{a}`]), undefined, 'the written key is read again');
  t.same(cache.lookup([`${PREFIX}{b}`]), ['record b']);
  await writer.set('tc:other', '1');
  keep(cache, `${PREFIX}{a}`, 'changed');
  await writer.set('tc:other', '2');
  await caughtUp(cache);
  t.same(cache.lookup([`${PREFIX}{a}`]), ['changed'], 'a write under another prefix invalidates nothing');
});

t.test('a value read before a write whose invalidation came first is not kept', async (t) => {
  const cache = await openCache(t);
  const key = `${PREFIX}{race}`;
  const ticket = cache.startRead([key]);
  const concurrent = cache.startRead([key]);
  await writer.set(key, 'written during the reads');
  await caughtUp(cache);
  cache.finishRead(ticket, ['read before the write']);
  t.equal(cache.lookup([key]), undefined, 'the stale value was dropped');
  cache.finishRead(concurrent, ['read before the write too']);
  t.equal(cache.lookup([key]), undefined, 'and so was the other read in flight');
  keep(cache, key, 'read after');
  t.same(cache.lookup([key]), ['read after'], 'a read that began after the write is kept');
  const failed = cache.startRead([key, `${PREFIX}{x}`]);
  cache.finishRead(failed, []);
  t.same(cache.lookup([key]), ['read after'], 'a failed read keeps nothing and drops nothing');
});

t.test('held heartbeats: the cache is not used once the lease runs out, and is used again after', async (t) => {
  const proxy = await startHoldingProxy(t, redis.port);
  const cache = await openCache(t, proxy.port);
  keep(cache, `${PREFIX}{held}`, 'value');
  await caughtUp(cache);
  t.same(cache.lookup([`${PREFIX}{held}`]), ['value']);
  proxy.holdFrom();
  const held = performance.now();
  await until(() => cache.lookup([`${PREFIX}{held}`]) === undefined, 'not used once the lease runs out', 2000);
  const elapsed = performance.now() - held;
  t.ok(elapsed <= LEASE_MS + 100, `not used ${elapsed.toFixed(0)} ms after the channel stopped answering (lease ${LEASE_MS} ms)`);
  await writer.set(`${PREFIX}{held}`, 'changed meanwhile');
  proxy.release();
  await caughtUp(cache);
  t.equal(cache.lookup([`${PREFIX}{held}`]), undefined, 'the write made while held was reported before the cache was used again');
});

t.test('a reconnection and FLUSHALL empty the cache', async (t) => {
  const cache = await openCache(t);
  keep(cache, `${PREFIX}{k}`, 'value');
  await caughtUp(cache);
  t.same(cache.lookup([`${PREFIX}{k}`]), ['value']);
  await redis.command('CLIENT', 'KILL', 'TYPE', 'pubsub');
  await until(() => cache.currentAsOf() === undefined || cache.lookup([`${PREFIX}{k}`]) === undefined, 'the connection drop is noticed', 2000);
  await until(() => cache.currentAsOf() !== undefined, 'set up again', 5000);
  t.equal(cache.lookup([`${PREFIX}{k}`]), undefined, 'what was cached before the reconnection is gone');
  keep(cache, `${PREFIX}{k}`, 'value');
  await caughtUp(cache);
  t.same(cache.lookup([`${PREFIX}{k}`]), ['value'], 'in use again');
  await redis.command('FLUSHALL');
  await caughtUp(cache);
  t.equal(cache.lookup([`${PREFIX}{k}`]), undefined, 'FLUSHALL empties it');
});
