// A service account as Redis keeps it: the record without its last use, which is written in a key
// of its own beside it (so that using an account never changes the record, nor its version).
import { createHash } from 'node:crypto';
import type { ServiceAccountRecord } from '../types.js';

export type StoredServiceAccount = Omit<ServiceAccountRecord, 'lastUsedAt' | 'lastUsedIp'>;

/** The usage key's JSON: the account's last use, and each held key's (keys: fingerprint -> when). */
interface StoredUsage {
  at: string;
  ip: string;
  keys?: Record<string, string>;
}

export function withUsage(stored: StoredServiceAccount, usage: string | null): ServiceAccountRecord {
  if (!usage) return { ...stored, lastUsedAt: null, lastUsedIp: null };
  const used = JSON.parse(usage) as StoredUsage;
  const keys = used.keys ?? {};
  const publicKeys = stored.publicKeys.map((key) => (keys[key.fingerprint] === undefined ? key : { ...key, lastUsedAt: keys[key.fingerprint] }));
  return { ...stored, publicKeys, lastUsedAt: used.at, lastUsedIp: used.ip };
}

/** The version CONSUME_NONCE compares: the SHA-1 of the record as stored (usage is kept apart, so using an account changes nothing). */
export function recordVersion(raw: string): string {
  return createHash('sha1').update(raw).digest('hex');
}
