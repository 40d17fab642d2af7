// Reads shared by the Redis adapters: several slots' keys at once, and a page of a sorted-set index.
import { Cluster } from 'ioredis';
import { decodeCursor, listOrder, type ListPosition } from '../page-cursor.js';
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

/** Flat [member, score, ...] (WITHSCORES) as positions. */
function positions(flat: string[]): ListPosition[] {
  const out: ListPosition[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push({ id: flat[i]!, createdMs: Number(flat[i + 1]) });
  return out;
}

/**
 * Up to limit + 1 entries of a sorted-set index (score: creation time in ms) after the page's
 * cursor, in list order (the extra one says more follow). Entries of the cursor's own millisecond
 * come first, those with a smaller id (compared here, as bytes: Lua's comparison follows Redis's
 * locale); they are few, so all of them are read.
 */
export async function positionsAfter(redis: RedisClient, index: string, page: PageRequest): Promise<ListPosition[]> {
  const after = decodeCursor(page.cursor);
  if (after === undefined) return positions(await redis.zrevrange(index, 0, page.limit, 'WITHSCORES'));
  const score = String(after.createdMs);
  const [ties, older] = await Promise.all([
    redis.zrevrangebyscore(index, score, score),
    redis.zrevrangebyscore(index, `(${score}`, '-inf', 'WITHSCORES', 'LIMIT', 0, page.limit + 1),
  ]);
  const sameMs = ties.filter((id) => listOrder(after, { createdMs: after.createdMs, id }) < 0).map((id) => ({ id, createdMs: after.createdMs }));
  return [...sameMs, ...positions(older)].slice(0, page.limit + 1);
}
