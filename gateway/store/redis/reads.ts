// Reads shared by the Redis adapters: several slots' keys at once, and a page of a sorted-set index.
import { Cluster } from 'ioredis';
import { decodeCursor } from '../page-cursor.js';
import type { RedisClient } from '../redis-connection.js';
import type { PageRequest } from '../types.js';

/**
 * Reads groups of keys, each group within one slot: one MGET on a single server, one per group (at
 * once) on a Cluster, where the group numbered mayFail (if any) is null when its read fails.
 */
export async function mgetGroups(redis: RedisClient, groups: string[][]): Promise<(string | null)[][]>;
export async function mgetGroups(redis: RedisClient, groups: string[][], mayFail: number): Promise<((string | null)[] | null)[]>;
export async function mgetGroups(redis: RedisClient, groups: string[][], mayFail?: number): Promise<((string | null)[] | null)[]> {
  if (groups.length === 0) return [];
  if (redis instanceof Cluster) {
    const cluster = redis;
    return Promise.all(groups.map((group, i) => (i === mayFail ? cluster.mget(group).catch(() => null) : cluster.mget(group))));
  }
  const flat = await redis.mget(groups.flat());
  let next = 0;
  return groups.map((group) => group.map(() => flat[next++] ?? null));
}

/** Up to limit + 1 ids of a sorted-set index after the page's cursor (the extra one says more follow). */
export function idsAfter(redis: RedisClient, index: string, page: PageRequest): Promise<string[]> {
  const after = decodeCursor(page.cursor);
  return redis.zrangebylex(index, after === undefined ? '-' : `(${after}`, '+', 'LIMIT', 0, page.limit + 1);
}
