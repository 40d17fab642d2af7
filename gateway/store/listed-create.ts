// Creating a record so that no failure leaves it invisible. A write answered 503 (a timeout, a
// partition) may still reach Redis later, so each step is ordered for the case where it lands
// after the caller gave up:
//   1. the list index entry first: at worst it names a record that never comes, which lists skip
//      and a repair removes (index-repair.ts);
//   2. then the record, in one script that refuses when the record exists or when a repair has
//      voided it (`<key>:void`, written by the repair in the record's own slot before it removes an
//      index entry without a record): a create that lands after its index entry was repaired away
//      writes nothing.
// Deletes go the other way (record first, then the indexes), in the store itself.
import type { ListPosition } from './page-cursor.js';
import type { RedisClient } from './redis-connection.js';

/** One key a create claims: the key, its void mark (same slot), and the value it gets. */
export type Claim = readonly [key: string, voidKey: string, value: string];

// KEYS: (key, void mark) pairs, all in one slot. ARGV: one value per pair. Sets every key only when
// none of the keys and none of the void marks exists. 1 set, 0 refused.
const CREATE_UNLESS_VOID = `
for i = 1, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 then return 0 end
end
for i = 1, #KEYS, 2 do
  redis.call('SET', KEYS[i], ARGV[(i + 1) / 2])
end
return 1`;

// KEYS: one key. ARGV: a value. Deletes the key only while it holds that value (undoing one's own claim).
export const DELETE_IF_EQUALS = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

// KEYS: a record, then keys that go with it (same slot). Deletes them all; 1 when the record existed.
export const DELETE_RECORD = `
local existed = redis.call('EXISTS', KEYS[1])
redis.call('DEL', unpack(KEYS))
return existed`;

async function claim(redis: RedisClient, claims: readonly Claim[]): Promise<boolean> {
  const keys = claims.flatMap(([key, voidKey]) => [key, voidKey]);
  return (await redis.eval(CREATE_UNLESS_VOID, keys.length, ...keys, ...claims.map(([, , value]) => value))) === 1;
}

/**
 * Adds the id to the sorted-set index (scored by its creation time: page-cursor.ts), then makes each step's claims (one atomic script per step;
 * the claims of a step share a slot). The first claim of the first step is the key that says the
 * record exists (the record, or the id's pointer). False, with this create's own writes undone,
 * when a step is refused; a failure (503) leaves what was written to be completed late or repaired.
 */
export async function createListed(redis: RedisClient, index: string, { id, createdMs }: ListPosition, steps: readonly (readonly Claim[])[]): Promise<boolean> {
  const added = await redis.zadd(index, createdMs, id);
  const made: Claim[] = [];
  for (const step of steps) {
    if (await claim(redis, step)) {
      made.push(...step);
      continue;
    }
    for (const [key, , value] of made) await redis.eval(DELETE_IF_EQUALS, 1, key, value);
    // The entry is this create's only if it added it and no record holds the id (a collision keeps it).
    const [existsKey] = steps[0]![0]!;
    if (added === 1 && (await redis.exists(existsKey)) === 0) await redis.zrem(index, id);
    return false;
  }
  return true;
}
