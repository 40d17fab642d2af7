// The embedded store's durable records, in one JSON file written to a temporary file and renamed
// over the old one, so a crash never leaves a half-written snapshot. A snapshot an older version
// wrote is read in the current shape: its records go through the upgrades the Redis layout
// migration applies (record-upgrades.ts), and the next write stores them so.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { upgradeClient, upgradedJson, upgradeServiceAccount, type StoredAccount, type StoredClient } from '../record-upgrades.js';
import { SIGNING_KEY_SET_META } from '../signing-key-set-record.js';
import type { ClientRecord, ServiceAccountRecord } from '../types.js';

export interface Snapshot {
  clients: Record<string, ClientRecord>;
  serviceAccounts: Record<string, ServiceAccountRecord>;
  meta: Record<string, string>;
  revoked: Record<string, number>;
  /** Absent in snapshots written before signing keys could be retired. */
  retiredSigningKeys?: Record<string, number>;
  /** Client id -> last use (ISO 8601); absent in snapshots written before it was recorded. */
  clientUses?: Record<string, string>;
}

/** A snapshot as any version wrote it. */
interface StoredSnapshot extends Omit<Snapshot, 'clients' | 'serviceAccounts'> {
  clients?: Record<string, StoredClient>;
  serviceAccounts?: Record<string, StoredAccount<ServiceAccountRecord>>;
}

function mapValues<A, B>(record: Record<string, A> | undefined, map: (value: A) => B): Record<string, B> {
  return Object.fromEntries(Object.entries(record ?? {}).map(([key, value]) => [key, map(value)]));
}

/** The snapshot with every record in its current shape. */
export function upgradedSnapshot(stored: StoredSnapshot): Snapshot {
  const meta = { ...stored.meta };
  const keySet = meta[SIGNING_KEY_SET_META];
  if (keySet !== undefined) meta[SIGNING_KEY_SET_META] = upgradedJson('signingKeySet', keySet) ?? keySet;
  return {
    ...stored,
    clients: mapValues(stored.clients, upgradeClient),
    serviceAccounts: mapValues(stored.serviceAccounts, (account) => upgradeServiceAccount(account)),
    meta,
  };
}

/** The snapshot at path, in the current shape; undefined when there is none yet. */
export function readSnapshot(path: string): Snapshot | undefined {
  return existsSync(path) ? upgradedSnapshot(JSON.parse(readFileSync(path, 'utf8')) as StoredSnapshot) : undefined;
}

export function writeSnapshot(path: string, snapshot: Snapshot): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(snapshot), { mode: 0o600 });
  renameSync(temporary, path);
}
