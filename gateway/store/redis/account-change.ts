// A change to one service account record on Redis (a key added or removed), atomic without a lock:
// optimistic, retried only when a concurrent writer came in between.
import { accessIdsOf } from '../account-pointers.js';
import { MAX_REPLACE_ATTEMPTS, REPLACE_IF_UNCHANGED } from '../redis-scripts.js';
import { StoreUnavailableError } from '../store-unavailable-error.js';
import type { KeyChange } from '../types.js';
import type { RedisStoreConnection } from './connection.js';
import { withUsage, type StoredServiceAccount } from './stored-account.js';

/**
 * Changes one account record atomically: read it, compute the change, and write it only while the
 * record is still what was read (REPLACE_IF_UNCHANGED, in the record's slot); retried when another
 * writer came in between. The Access ID behind an id never changes, so the id lookup may come first.
 */
export async function changeAccount<O extends string>(
  connection: RedisStoreConnection,
  id: string,
  change: (stored: StoredServiceAccount) => { outcome: O; account: StoredServiceAccount },
): Promise<KeyChange<O | 'account_not_found'>> {
  const { redis, keys } = connection;
  const [accessId] = await connection.guard(() => accessIdsOf(redis, keys, [id]));
  if (!accessId) return { outcome: 'account_not_found', account: null };
  const key = keys.account(accessId);
  for (let attempt = 0; attempt < MAX_REPLACE_ATTEMPTS; attempt++) {
    const [raw, usage] = await connection.guard(() => redis.mget(key, keys.accountUsage(accessId)));
    if (!raw) return { outcome: 'account_not_found', account: null };
    const { outcome, account } = change(JSON.parse(raw) as StoredServiceAccount);
    if (outcome !== 'added' && outcome !== 'removed' && outcome !== 'updated') {
      // Nothing to write (the key is already gone, already held...): answered once the replicas
      // hold this state too, so a repeat of an unconfirmed change confirms it.
      await connection.guard(() => connection.replicaAck.confirm(key));
      return { outcome, account: withUsage(account, usage ?? null) };
    }
    const set = await connection.confirmed<number>(key, (pipeline) => pipeline.eval(REPLACE_IF_UNCHANGED, 1, key, raw, JSON.stringify(account)));
    // 0: changed (or deleted) since it was read; the next read says which.
    if (set === 1) return { outcome, account: withUsage(account, usage ?? null) };
  }
  throw new StoreUnavailableError(new Error(`service account ${id} kept changing; try again`));
}
