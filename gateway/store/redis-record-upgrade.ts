// Layout version 3: every record in its current shape (record-upgrades.ts), so that readers need no
// fallback for the fields added since a record was stored. Every client record, service account
// record and the signing key set is read; one in an older shape is upgraded in Node (Lua's cjson
// would turn an empty list into an object) and written back by compare-and-set, one key per script
// (so it works on a Cluster too): only while the key still holds what was read, else it is read
// again. Neither a concurrent migration nor a change an instance makes meanwhile is lost, and a
// record upgraded once is current, so running this again (an interrupted start) writes nothing.
import type { Redis } from 'ioredis';
import { upgradedJson, type RecordKind } from './record-upgrades.js';
import { scanTargets, type RedisClient } from './redis-connection.js';
import { globEscape, type RedisKeys } from './redis-keys.js';
import { COMPARE_AND_SET, MAX_REPLACE_ATTEMPTS, REPLACE_IF_UNCHANGED } from './redis-scripts.js';
import { SIGNING_KEY_SET_META } from './signing-key-set-record.js';

/** What the step rewrote (all zero when every record was current). */
export interface UpgradeCounts {
  clients: number;
  serviceAccounts: number;
  signingKeySets: number;
}

const SCAN_COUNT = 1000;
const NAMES: Record<RecordKind, string> = { client: 'client record', serviceAccount: 'service account record', signingKeySet: 'signing key set' };
const CLIENT_RECORD = /^client:\{[^{}]+\}$/;
const ACCOUNT_RECORD = /^sa:\{[^{}]+\}$/;

/** Writes the upgraded value only over the one read: 'set', 'changed' meanwhile, or 'gone'. */
type Replace = (key: string, expected: string, value: string) => Promise<'set' | 'changed' | 'gone'>;

/**
 * Upgrades one key's record: true when this call rewrote it. Bounded: a record that keeps changing
 * under it fails the step, and with it the layout check, which runs again when the store next
 * connects (layout-gate.ts).
 */
async function upgradeKey(redis: RedisClient, kind: RecordKind, key: string, replace: Replace, read?: string | null): Promise<boolean> {
  let raw = read === undefined ? await redis.get(key) : read;
  for (let attempt = 0; attempt < MAX_REPLACE_ATTEMPTS; attempt++) {
    if (raw === null) return false;
    const upgraded = upgradedJson(kind, raw);
    if (upgraded === null) return false;
    const outcome = await replace(key, raw, upgraded);
    if (outcome !== 'changed') return outcome === 'set';
    raw = await redis.get(key);
  }
  throw new Error(`a ${NAMES[kind]} kept changing while the layout migration upgraded it; the migration runs again when the store next connects`);
}

/** Brings every stored record to its current shape; see the file comment. */
export async function upgradeStoredRecords(redis: RedisClient, keys: RedisKeys): Promise<UpgradeCounts> {
  const counts: UpgradeCounts = { clients: 0, serviceAccounts: 0, signingKeySets: 0 };
  const replaceRecord: Replace = async (key, expected, value) => {
    const outcome = Number(await redis.eval(REPLACE_IF_UNCHANGED, 1, key, expected, value));
    return outcome === 1 ? 'set' : outcome === 0 ? 'changed' : 'gone';
  };
  // The key set through the shared values' compare-and-set, which announces the change (a gone
  // set reads as changed, and the next read finds it gone).
  const replaceMeta: Replace = async (key, expected, value) =>
    Number(await redis.eval(COMPARE_AND_SET, 1, key, '0', expected, value, keys.metaChannel(SIGNING_KEY_SET_META))) === 1 ? 'set' : 'changed';

  for (const node of scanTargets(redis)) await upgradeNode(redis, node, keys, replaceRecord, counts);
  if (await upgradeKey(redis, 'signingKeySet', keys.meta(SIGNING_KEY_SET_META), replaceMeta)) counts.signingKeySets++;
  return counts;
}

/** One SCAN over one master: its records are read a batch at a time (pipelined) and upgraded. */
async function upgradeNode(redis: RedisClient, node: Redis, keys: RedisKeys, replace: Replace, counts: UpgradeCounts): Promise<void> {
  let cursor = '0';
  do {
    const [next, found] = await node.scan(cursor, 'MATCH', `${globEscape(keys.prefix)}*`, 'COUNT', SCAN_COUNT);
    cursor = next;
    const records = found.flatMap((key): [RecordKind, string][] => {
      const rest = key.slice(keys.prefix.length);
      if (CLIENT_RECORD.test(rest)) return [['client', key]];
      if (ACCOUNT_RECORD.test(rest)) return [['serviceAccount', key]];
      return [];
    });
    // Each key read by itself: on a Cluster the keys of one batch sit in many slots. A failure
    // fails the step once the rest of the batch is done, so nothing writes after it returned.
    const raws = await Promise.all(records.map(([, key]) => redis.get(key)));
    const outcomes = await Promise.allSettled(records.map(([kind, key], i) => upgradeKey(redis, kind, key, replace, raws[i])));
    outcomes.forEach((outcome, i) => {
      if (outcome.status === 'fulfilled' && outcome.value) counts[records[i]![0] === 'client' ? 'clients' : 'serviceAccounts']++;
    });
    const failed = outcomes.find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
  } while (cursor !== '0');
}
