// The bench's Redis: a population of service accounts seeded under the gateway's key prefix
// (BENCH_ACCOUNTS), the server's pid for its CPU time, and the bench's keys removed afterwards
// (the Redis is shared: nothing else is touched).
import { randomBytes, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { serviceAccountFromInput } from '../gateway/admin/service-account-input.js';
import { generateSigningKey } from '../gateway/signing/index.js';
import { RedisCredentialStore } from '../gateway/store/redis-store.js';

/** Creations in flight at once: enough to keep Redis busy, few enough to stay within its timeouts. */
const CONCURRENCY = 2000;

/**
 * Writes `count` service accounts through the store itself (so the keys are exactly the ones it
 * writes). The records are built as serviceAccountFromInput builds them, from one validated
 * template: parsing the key is what costs, and every seeded account shares one (none of them
 * signs anything); each gets its own management id and Access ID, in the same formats.
 */
export async function seedServiceAccounts(redisUrl: string, prefix: string, count: number): Promise<void> {
  const template = serviceAccountFromInput({
    description: 'bench population',
    public_key: generateSigningKey('bench-population').publicKeyLine,
    permissions: ['view_balance'],
  });
  const store = new RedisCredentialStore(redisUrl, prefix, { commandTimeoutMs: 30_000 });
  await store.connect();
  try {
    for (let done = 0; done < count;) {
      const batch = Math.min(CONCURRENCY, count - done);
      const created = await Promise.all(
        Array.from({ length: batch }, () => store.createServiceAccount({ ...template, id: `sa_${randomBytes(10).toString('hex')}`, accessId: randomUUID() })),
      );
      if (created.includes(false)) throw new Error('a seeded service account collided with an existing one');
      done += batch;
    }
  } finally {
    await store.close();
  }
}

/** The pid of the Redis server, when it runs on this machine (its CPU time is then readable). */
export async function localRedisPid(redisUrl: string): Promise<number | undefined> {
  const host = new URL(redisUrl).hostname;
  if (!['127.0.0.1', 'localhost', '::1', '[::1]'].includes(host)) return undefined;
  const redis = new Redis(redisUrl, { lazyConnect: true });
  try {
    await redis.connect();
    const match = /^process_id:(\d+)/m.exec(await redis.info('server'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  } finally {
    redis.disconnect();
  }
}

/** Deletes every key under the bench's own prefix (SCAN + UNLINK in batches). */
export async function deleteRedisPrefix(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl);
  try {
    const stream = redis.scanStream({ match: `${prefix}*`, count: 1000 });
    for await (const keys of stream) if ((keys as string[]).length > 0) await redis.unlink(...(keys as string[]));
  } finally {
    redis.disconnect();
  }
}
