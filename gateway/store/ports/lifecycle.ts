// What a store is and how it starts, answers, stops and is kept in repair, whatever it stores.
import type { StoreNodes } from '../node-breakers.js';

export interface StoreLifecycle {
  readonly kind: 'redis' | 'embedded';
  /** On a Redis Cluster: each master's state (a breaker per master, node-breakers.ts); undefined elsewhere. */
  readonly nodes?: StoreNodes | undefined;
  /**
   * Redis only (the embedded store is ready once made): connects and brings the keys to the current
   * layout; rejects with StoreUnavailableError, or OldLayoutOnClusterError (redis-layout-migration.ts).
   */
  connect?(): Promise<void>;
  /** Resolves when the store answers; rejects when it cannot be reached. */
  ping(): Promise<void>;
  /** How many clients and service accounts there are (the list indexes' sizes: one cheap read each). */
  countCredentials(): Promise<CredentialCounts>;
  close(): Promise<void>;
  // Durability (Redis only; the embedded store snapshots every change to its file)
  /** How the server persists writes: CONFIG GET, else INFO persistence, else unknown. */
  persistence?(): Promise<PersistenceReport>;
  /**
   * Redis only (the embedded store keeps no separate index): reconciles the list indexes and the id
   * pointers with the records (index-repair.ts). Idempotent, safe while other instances run it too.
   */
  repairIndexes?(options?: RepairOptions): Promise<RepairReport>;
}

export interface CredentialCounts {
  clients: number;
  serviceAccounts: number;
}

export interface RepairOptions {
  /** How long an index entry without a record must stay so before it is removed (a create in flight writes its record by then). */
  settleMs?: number;
  /** Records handled per batch and ids per index read (each SCAN step examines 1,000 keys whatever this is). */
  batchSize?: number;
}

/** What a repair found and changed. */
export interface RepairReport {
  clients: { records: number; listed: number; indexAdded: number; indexRemoved: number };
  serviceAccounts: { records: number; listed: number; indexAdded: number; indexRemoved: number; pointersAdded: number; pointersRemoved: number };
  /** Servers scanned: every master of a Cluster, else the one server. */
  nodesScanned: number;
  durationMs: number;
}

/** What a Redis server says about its persistence; undefined where it would not say. */
export interface PersistenceReport {
  source: 'config' | 'info' | 'unknown';
  appendonly: boolean | undefined;
  appendfsync: string | undefined;
  /** The RDB snapshot schedule; '' when snapshots are off. */
  save: string | undefined;
  /** Why neither CONFIG nor INFO answered (source 'unknown'). */
  refusal?: string;
}
