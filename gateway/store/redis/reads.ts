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

// KEYS: the index. ARGV: the cursor's id and score, how many. The entries after the cursor's own, by
// its rank (one step: no change can come between the rank and the range); nil when the cursor's
// entry is gone. Only numbers are compared here: Lua compares text by Redis's locale.
const AFTER_CURSOR = `
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) ~= tonumber(ARGV[2]) then return false end
local rank = redis.call('ZREVRANK', KEYS[1], ARGV[1])
return redis.call('ZREVRANGE', KEYS[1], rank + 1, rank + tonumber(ARGV[3]), 'WITHSCORES')`;

/** Entries of one millisecond read at a time while looking for where a deleted cursor entry stood. */
const TIE_CHUNK = 500;

/**
 * Up to limit + 1 entries of a sorted-set index (score: creation time in ms) after the page's
 * cursor, in list order (the extra one says more follow): from the cursor's own entry by its rank.
 * When that entry was deleted meanwhile, the entries of its millisecond are looked through for where
 * it stood (compared here, as bytes), a chunk at a time, then the older ones follow.
 */
export async function positionsAfter(redis: RedisClient, index: string, page: PageRequest): Promise<ListPosition[]> {
  const after = decodeCursor(page.cursor);
  const count = page.limit + 1;
  if (after === undefined) return positions(await redis.zrevrange(index, 0, page.limit, 'WITHSCORES'));
  const score = String(after.createdMs);
  const byRank = (await redis.eval(AFTER_CURSOR, 1, index, after.id, score, count)) as string[] | null;
  if (byRank !== null) return positions(byRank);
  const found: ListPosition[] = [];
  for (let offset = 0; found.length < count; offset += TIE_CHUNK) {
    const ties = await redis.zrevrangebyscore(index, score, score, 'LIMIT', offset, TIE_CHUNK);
    for (const id of ties) if (listOrder(after, { createdMs: after.createdMs, id }) < 0) found.push({ id, createdMs: after.createdMs });
    if (ties.length < TIE_CHUNK) break;
  }
  if (found.length < count) found.push(...positions(await redis.zrevrangebyscore(index, `(${score}`, '-inf', 'WITHSCORES', 'LIMIT', 0, count - found.length)));
  return found.slice(0, count);
}
