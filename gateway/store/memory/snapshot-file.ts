// The embedded store's durable records, in one JSON file written to a temporary file and renamed
// over the old one, so a crash never leaves a half-written snapshot.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ClientRecord, ServiceAccountRecord } from '../types.js';

export interface Snapshot {
  clients: Record<string, ClientRecord>;
  serviceAccounts: Record<string, ServiceAccountRecord>;
  meta: Record<string, string>;
  revoked: Record<string, number>;
  /** Absent in snapshots written before signing keys could be retired. */
  retiredSigningKeys?: Record<string, number>;
}

/** The snapshot at path; undefined when there is none yet. */
export function readSnapshot(path: string): Snapshot | undefined {
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Snapshot) : undefined;
}

export function writeSnapshot(path: string, snapshot: Snapshot): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(snapshot), { mode: 0o600 });
  renameSync(temporary, path);
}
