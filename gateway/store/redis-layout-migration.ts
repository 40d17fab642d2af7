// The key layout, brought to the current version when a store connects: one step per version,
// each recorded in `layout:version` only once it is complete, so an interrupted start resumes with
// the step it was in, and a store of the first layout goes through every step in one start. A
// store already at the current version costs one round trip (its version and one other GET).
//
// Version 2: the one-time move from the first key layout (no hash tags: `client:<id>`, `clients` set,
// `sa:<id>` -> Access ID, `sa-access:<accessId>`, `sa-used:<accessId>`, `nonce:<accessId>:<nonce>`,
// `fail:<key>`, `revoked:<jti>`) to the Cluster layout of redis-keys.ts.
//
// Safe to run by several instances at once and to interrupt: each record moves in one script that
// reads, writes and deletes it atomically, so it moves exactly once, and a record already moved (or
// deleted since through the new layout) is never written back. Every old instance must be stopped
// first: one still running keeps reading and writing the old keys, which no longer hold the data.
//
// What does not move: `meta:*` and `session:*` keep their names. Old revocation marks cannot move
// (they do not say whose token they revoke): they stay where they are, and the store checks them
// too until the last one expires. A Cluster never held the old layout (its scripts were CROSSSLOT
// there); if one does, the start is refused with what was found and what to do.
//
// Version 3: every record in its current shape (redis-record-upgrade.ts). Client records, service
// account records and the signing key set stored before a field existed get it, with what its
// absence meant (not a resource server; never expires; the top-level key as the only one; the
// first key set's previous key as rotated out), each by compare-and-set, so that concurrent
// migrations and changes lose nothing and readers need no fallback. It runs on a Cluster too.
//
// Versions 4 and 5: the same upgrade once more, for the fields added since (4: a client's
// tokenEndpointAuthMethod and jwks, a secret client without keys; 5: its dpopBoundAccessTokens,
// false). A store at version 3 or 4 runs only it.
import { Cluster } from 'ioredis';
import { scanTargets, type RedisClient } from './redis-connection.js';
import { globEscape, type RedisKeys } from './redis-keys.js';
import { upgradeStoredRecords, type UpgradeCounts } from './redis-record-upgrade.js';

const LAYOUT_VERSION = '5';
/** Every record upgraded to the shapes of version 3 or 4 (the move done). */
const RECORDS_V3 = '3';
const RECORDS_V4 = '4';
/** Recorded once the first layout has moved (version 2 done). */
const CLUSTER_LAYOUT = '2';

// KEYS: old client, new client, client index. ARGV: client id.
const MOVE_CLIENT = `
local record = redis.call('GET', KEYS[1])
if not record then return 0 end
redis.call('SET', KEYS[2], record, 'NX')
redis.call('ZADD', KEYS[3], 0, ARGV[1])
redis.call('DEL', KEYS[1])
return 1`;

// KEYS: old sa:<id>, old sa-access, old sa-used, new record, new usage, id -> Access ID map, account
// index. ARGV: id, the Access ID read before (the move is skipped if it changed meanwhile).
const MOVE_ACCOUNT = `
if redis.call('GET', KEYS[1]) ~= ARGV[2] then return 0 end
local record = redis.call('GET', KEYS[2])
if record then
  redis.call('SET', KEYS[4], record, 'NX')
  local used = redis.call('GET', KEYS[3])
  if used then redis.call('SET', KEYS[5], used, 'NX') end
  redis.call('HSETNX', KEYS[6], ARGV[1], ARGV[2])
  redis.call('ZADD', KEYS[7], 0, ARGV[1])
end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
return 1`;

// KEYS: old key, new key. Moves a string with what is left of its lifetime (used nonces, failure counters).
const MOVE_EXPIRING = `
local value = redis.call('GET', KEYS[1])
if not value then return 0 end
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then redis.call('SET', KEYS[2], value, 'PX', ttl, 'NX') elseif ttl == -1 then redis.call('SET', KEYS[2], value, 'NX') end
redis.call('DEL', KEYS[1])
return 1`;

interface Moved {
  clients: number;
  serviceAccounts: number;
  nonces: number;
  failureCounters: number;
}

export interface MigrationResult {
  /** What was moved from the first layout (all zero when the store was in the Cluster layout already). */
  moved: Moved;
  /** What was rewritten in its current shape (all zero when every record was). */
  upgraded: UpgradeCounts;
  /** Until when (epoch ms) old revocation marks may exist and must still be honoured; 0: none. */
  legacyRevocationsUntil: number;
}

export class OldLayoutOnClusterError extends Error {
  constructor(found: string[]) {
    super(
      `Redis Cluster holds keys of the gateway's first key layout (${found.join(', ')}), which never ran on a Cluster. ` +
        'Start the gateway once against a single Redis holding that data (REDIS_URL) to migrate it, then copy the keys to the Cluster; ' +
        'or delete those keys if they are stale.',
    );
    this.name = 'OldLayoutOnClusterError';
  }
}

/** Brings the store to the current layout (a no-op costing one round trip once it is); see the file comment. */
export async function migrateLayout(redis: RedisClient, keys: RedisKeys): Promise<MigrationResult> {
  const [version, until] = await Promise.all([redis.get(keys.layoutVersion), redis.get(keys.legacyRevocationsUntil)]);
  const inClusterLayout = { moved: { clients: 0, serviceAccounts: 0, nonces: 0, failureCounters: 0 }, legacyRevocationsUntil: Number(until ?? 0) };
  if (version === LAYOUT_VERSION) return { ...inClusterLayout, upgraded: { clients: 0, serviceAccounts: 0, signingKeySets: 0 } };
  const first = version === CLUSTER_LAYOUT || version === RECORDS_V3 || version === RECORDS_V4 ? inClusterLayout : await moveFirstLayout(redis, keys);
  const upgraded = await upgradeStoredRecords(redis, keys);
  await redis.set(keys.layoutVersion, LAYOUT_VERSION);
  return { ...first, upgraded };
}

/** Version 2: the move from the first layout (recorded as done at its end). */
async function moveFirstLayout(redis: RedisClient, keys: RedisKeys): Promise<Omit<MigrationResult, 'upgraded'>> {
  const moved: Moved = { clients: 0, serviceAccounts: 0, nonces: 0, failureCounters: 0 };

  // Old clients and accounts always sit in these two sets. Without them, nothing old is worth
  // moving: nonces and revocations of credentials that no longer exist protect nothing.
  const oldClients = `${keys.prefix}clients`;
  const oldAccounts = `${keys.prefix}sas`;
  const [hasClients, hasAccounts] = await Promise.all([redis.exists(oldClients), redis.exists(oldAccounts)]);
  if (hasClients === 0 && hasAccounts === 0) {
    await redis.set(keys.layoutVersion, CLUSTER_LAYOUT);
    return { moved, legacyRevocationsUntil: 0 };
  }
  if (redis instanceof Cluster) throw new OldLayoutOnClusterError([hasClients ? oldClients : '', hasAccounts ? oldAccounts : ''].filter(Boolean));

  let legacyRevocationsUntil = 0;
  for (const node of scanTargets(redis)) {
    let cursor = '0';
    do {
      const [next, batch] = await node.scan(cursor, 'MATCH', `${globEscape(keys.prefix)}*`, 'COUNT', 1000);
      cursor = next;
      for (const key of batch) {
        const rest = key.slice(keys.prefix.length);
        let match: RegExpExecArray | null;
        if ((match = /^client:([^{}:]+)$/.exec(rest))) {
          const id = match[1]!;
          moved.clients += Number(await redis.eval(MOVE_CLIENT, 3, key, keys.client(id), keys.clientIndex, id));
        } else if ((match = /^sa:([^{}:]+)$/.exec(rest))) {
          const id = match[1]!;
          const accessId = await redis.get(key);
          if (!accessId) continue;
          const old = [key, `${keys.prefix}sa-access:${accessId}`, `${keys.prefix}sa-used:${accessId}`];
          const fresh = [keys.account(accessId), keys.accountUsage(accessId), keys.accessIdsById, keys.accountIndex];
          moved.serviceAccounts += Number(await redis.eval(MOVE_ACCOUNT, 7, ...old, ...fresh, id, accessId));
        } else if ((match = /^nonce:([^{}:]+):(.+)$/.exec(rest))) {
          moved.nonces += Number(await redis.eval(MOVE_EXPIRING, 2, key, keys.nonce(match[1]!, match[2]!)));
        } else if ((match = /^fail:([^{].*)$/.exec(rest))) {
          moved.failureCounters += Number(await redis.eval(MOVE_EXPIRING, 2, key, keys.failures(match[1]!)));
        } else if (/^revoked:[^{]/.test(rest)) {
          const ttl = await redis.pttl(key);
          if (ttl > 0) legacyRevocationsUntil = Math.max(legacyRevocationsUntil, Date.now() + ttl);
        }
      }
    } while (cursor !== '0');
  }

  // The old indexes go last: an interrupted run finds them again and finishes the move.
  await redis.del(oldClients, oldAccounts);
  if (legacyRevocationsUntil > 0) {
    // Another migrating instance may have seen a later mark: keep the latest.
    const earlier = Number((await redis.get(keys.legacyRevocationsUntil)) ?? 0);
    legacyRevocationsUntil = Math.max(legacyRevocationsUntil, earlier);
    await redis.set(keys.legacyRevocationsUntil, String(legacyRevocationsUntil), 'PXAT', legacyRevocationsUntil);
  }
  await redis.set(keys.layoutVersion, CLUSTER_LAYOUT);
  return { moved, legacyRevocationsUntil };
}
