// The gateway's one eviction rule: at most maxEntries, the least recently used going first, and
// entries with a TTL unreadable from the moment it runs out, on the cache's clock.
import t from 'tap';
import { boundedCache } from '../../gateway/cache/bounded-cache.js';

t.test('bounded in count: the least recently used entry goes first', async (t) => {
  const cache = boundedCache<string, number>(2);
  cache.set('a', 1);
  cache.set('b', 2);
  t.equal(cache.get('a'), 1, 'reading a makes b the least recently used');
  cache.set('c', 3);
  t.equal(cache.size, 2);
  t.equal(cache.get('b'), undefined, 'b went');
  t.equal(cache.get('a'), 1);
  t.equal(cache.get('c'), 3);
});

t.test('an entry with a TTL is dropped when it runs out, on the given clock', async (t) => {
  let now = 1_000_000;
  const cache = boundedCache<string, string>(10, { now: () => now });
  cache.set('short', 'x', { ttl: 500 });
  cache.set('forever', 'y');
  now += 500;
  t.equal(cache.get('short'), 'x', 'still there at the end of its TTL');
  now += 1;
  t.equal(cache.get('short'), undefined, 'gone once past it');
  t.equal(cache.has('short'), false, 'and removed');
  t.equal(cache.get('forever'), 'y', 'an entry without a TTL stays');
});

t.test('an explicit start counts the TTL from that moment', async (t) => {
  let now = 5_000;
  const cache = boundedCache<string, string>(10, { now: () => now });
  cache.set('k', 'v', { ttl: 1_000, start: 4_500 });
  now = 5_500;
  t.equal(cache.get('k'), 'v');
  now = 5_501;
  t.equal(cache.get('k'), undefined);
});
