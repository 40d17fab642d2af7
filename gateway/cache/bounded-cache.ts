// The one eviction rule of the gateway's in-memory caches: a maximum entry count, the least
// recently used entry going first, and (for caches whose entries expire) a TTL per entry, checked
// when the entry is read. No timers: an expired entry occupies its slot until it is read or evicted.
import { LRUCache } from 'lru-cache';

export type BoundedCache<K extends NonNullable<unknown>, V extends NonNullable<unknown>> = LRUCache<K, V>;

export interface BoundedCacheOptions {
  /** Epoch milliseconds, the clock TTLs run on: wall-clock time, as expiry instants (a JWT's exp) are. */
  now?: () => number;
}

/** A cache of at most maxEntries; set(key, value, { ttl, start }) gives an entry a lifetime in milliseconds. */
export function boundedCache<K extends NonNullable<unknown>, V extends NonNullable<unknown>>(
  maxEntries: number,
  options: BoundedCacheOptions = {},
): BoundedCache<K, V> {
  return new LRUCache<K, V>({
    max: maxEntries,
    // The clock is read on each read of an expiring entry rather than cached, which would start a timer.
    ttlResolution: 0,
    perf: { now: options.now ?? Date.now },
  });
}
