// The shared test Redis: TEST_REDIS_URL (host, port and database; default redis://127.0.0.1:6379,
// database 0). Every test gets its own key prefix there and removes its keys after; a prefix an
// interrupted run leaves is removed on the way out (interrupt-cleanup.ts).
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { deletePrefixOnInterrupt, forgetPrefix } from './interrupt-cleanup.js';

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

const parsed = new URL(TEST_REDIS_URL);

/** Where the shared test Redis listens, and the database the tests use (the URL's path, 0 without one). */
export const TEST_REDIS = {
  host: parsed.hostname.replace(/^\[(.*)\]$/, '$1') || '127.0.0.1',
  port: Number(parsed.port || 6379),
  db: Number(parsed.pathname.slice(1) || 0),
};

/**
 * The shared test Redis as reached through a loopback proxy on `port` (a forwarder a test cuts, a
 * proxy that holds writes): the same database and credentials, another address.
 */
export function testRedisUrlVia(port: number): string {
  const url = new URL(TEST_REDIS_URL);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return url.toString();
}

/** A prefix of the test's own, deleted from the shared Redis if the run is interrupted before its teardown. */
export function uniquePrefix(label = 'test'): string {
  const prefix = `${label}:${randomUUID()}:`;
  deletePrefixOnInterrupt(TEST_REDIS_URL, prefix);
  return prefix;
}

export async function deleteKeysWithPrefix(prefix: string): Promise<void> {
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true });
  await redis.connect();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  redis.disconnect();
  forgetPrefix(TEST_REDIS_URL, prefix);
}
