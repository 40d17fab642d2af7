// Finding a service account's Access ID from its management id: the account's pointer key
// (`sa-id:{<id>}`, beside the record for ids from account-ids.ts), else, for accounts created
// before the pointers existed, the old id map (`index:sa-ids`) until a repair gives them a pointer.
import type { RedisClient } from './redis-connection.js';
import type { RedisKeys } from './redis-keys.js';

/** The Access ID behind each id, or null. Every GET is sent at once (one round trip per node). */
export async function accessIdsOf(redis: RedisClient, keys: RedisKeys, ids: readonly string[]): Promise<(string | null)[]> {
  if (ids.length === 0) return [];
  const pointers = await Promise.all(ids.map((id) => redis.get(keys.accountPointer(id))));
  const missing = ids.filter((_id, i) => pointers[i] === null);
  if (missing.length === 0) return pointers;
  const legacy = await redis.hmget(keys.accessIdsById, ...missing);
  let next = 0;
  return pointers.map((accessId) => accessId ?? legacy[next++] ?? null);
}
