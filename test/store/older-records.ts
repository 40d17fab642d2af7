// A Redis store as a version before layout 3 left it: records in the shapes of their time (the
// fields added since left out) and `layout:version` 2, made from records a current store wrote.
import type { Cluster, Redis } from 'ioredis';
import { RedisKeys } from '../../gateway/store/redis-keys.js';
import type { StoredKey, StoredKeySet } from '../../gateway/store/signing-key-set-record.js';
import type { ClientRecord, ServiceAccountRecord } from '../../gateway/store/types.js';

export const KEY_SET_META = 'jwt-signing-keys';

/** A client as stored before `resourceServer`, `tokenEndpointAuthMethod` and `jwks` existed (a secret client). */
export function olderClientJson(client: ClientRecord): string {
  const { resourceServer: _r, tokenEndpointAuthMethod: _m, jwks: _k, dpopBoundAccessTokens: _d, ...older } = client;
  return JSON.stringify(older);
}

/** A client as layout version 3 stored it: before `tokenEndpointAuthMethod` and `jwks` existed. */
export function version3ClientJson(client: ClientRecord): string {
  const { tokenEndpointAuthMethod: _m, jwks: _k, dpopBoundAccessTokens: _d, ...older } = client;
  return JSON.stringify(older);
}

/** A client as layout version 4 stored it: before `dpopBoundAccessTokens` existed. */
export function version4ClientJson(client: ClientRecord): string {
  const { dpopBoundAccessTokens: _d, ...older } = client;
  return JSON.stringify(older);
}

/** An account as Redis stored it before `expiresAt` and `publicKeys` existed (its usage is kept apart). */
export function olderAccountJson(account: ServiceAccountRecord): string {
  const { expiresAt: _e, publicKeys: _k, lastUsedAt: _at, lastUsedIp: _ip, ...older } = account;
  return JSON.stringify(older);
}

/** The first form of the key set: the active key and the newest rotated-out one as `previous`. */
export function firstKeySetForm(set: StoredKeySet): { active: StoredKey; previous: StoredKey | null } {
  const [newest] = set.retired;
  if (!newest) return { active: set.active, previous: null };
  const { retiredAt: _at, ...previous } = newest;
  return { active: set.active, previous };
}

export interface OlderRecords {
  clients?: ClientRecord[];
  accounts?: ServiceAccountRecord[];
  /** The key set as stored, in whatever form (JSON text). */
  keySet?: string;
}

/** Rewrites the records in their older shapes (each key by itself: a Cluster's keys sit in many slots) and marks the store as of layout version 2. */
export async function storeOlderShapes(redis: Redis | Cluster, prefix: string, records: OlderRecords): Promise<void> {
  const keys = new RedisKeys(prefix);
  await Promise.all([
    ...(records.clients ?? []).map((c) => redis.set(keys.client(c.clientId), olderClientJson(c))),
    ...(records.accounts ?? []).map((a) => redis.set(keys.account(a.accessId), olderAccountJson(a))),
    ...(records.keySet === undefined ? [] : [redis.set(keys.meta(KEY_SET_META), records.keySet)]),
  ]);
  await redis.set(keys.layoutVersion, '2');
}
