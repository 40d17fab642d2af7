// node delete-prefixes.mjs <redis-url> <time-limit-ms> <prefix>...
// Deletes every key under each prefix (SCAN + UNLINK). Run by interrupt-cleanup.ts for a test
// process on its way out, which can no longer wait for Redis itself; it stops at the time limit
// whatever is left, and touches nothing outside the prefixes.
import { Redis } from 'ioredis';

const [url, limit, ...prefixes] = process.argv.slice(2);
setTimeout(() => process.exit(2), Number(limit)).unref();

/** A glob pattern matching exactly the keys that start with `prefix`. */
const pattern = (prefix) => `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;

const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1000, retryStrategy: () => null });
redis.on('error', () => {});
try {
  await redis.connect();
  await Promise.all(
    prefixes.map(async (prefix) => {
      let cursor = '0';
      // Bounded: a SCAN walk ends on its own; the cap guards against a server that never says 0.
      for (let step = 0; step < 100_000; step++) {
        const [next, keys] = await redis.scan(cursor, 'MATCH', pattern(prefix), 'COUNT', 1000);
        if (keys.length > 0) await redis.unlink(...keys);
        cursor = next;
        if (cursor === '0') break;
      }
    }),
  );
} finally {
  redis.disconnect();
}
