// A service account as Redis keeps it: the record without its last use, which is written in a key
// of its own beside it (so that using an account never changes the record, nor its version).
import { createHash } from 'node:crypto';
import type { ServiceAccountRecord } from '../types.js';

export type StoredServiceAccount = Omit<ServiceAccountRecord, 'lastUsedAt' | 'lastUsedIp'>;

export function withUsage(stored: StoredServiceAccount, usage: string | null): ServiceAccountRecord {
  const used = usage ? (JSON.parse(usage) as { at: string; ip: string }) : null;
  return { ...stored, lastUsedAt: used?.at ?? null, lastUsedIp: used?.ip ?? null };
}

/** The version CONSUME_NONCE compares: the SHA-1 of the record as stored (usage is kept apart, so using an account changes nothing). */
export function recordVersion(raw: string): string {
  return createHash('sha1').update(raw).digest('hex');
}
