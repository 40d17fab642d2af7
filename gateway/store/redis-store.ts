// Credential store on Redis (one server, a master behind Sentinel, or a Cluster), shared by every
// gateway instance: one adapter per port (redis/), all over one connection (redis/connection.ts)
// that fails fast and closed. The key layout (redis-keys.ts) keeps every multi-key step on one
// credential in one Cluster slot; indexes are written in their own commands, before the record on
// create (listed-create.ts) and after it is gone on delete, and readers skip an index entry whose
// record is gone.
import type { StoreNodes } from './node-breakers.js';
import { PortedStore, type StorePorts } from './ported-store.js';
import type { RedisClientSettings } from './redis-connection.js';
import type { MigrationResult } from './redis-layout-migration.js';
import { RedisClientStore } from './redis/clients.js';
import { RedisStoreConnection, type RedisStoreOptions } from './redis/connection.js';
import { RedisCounterStore } from './redis/counters.js';
import { RedisServiceAccountStore } from './redis/service-accounts.js';
import { RedisSessionStore } from './redis/sessions.js';
import { RedisSharedValues } from './redis/shared-values.js';
import type { CredentialCounts, CredentialStore, PersistenceReport, RepairOptions, RepairReport } from './types.js';

export type { RedisStoreOptions } from './redis/connection.js';

export class RedisCredentialStore extends PortedStore implements CredentialStore {
  readonly kind = 'redis' as const;
  /** On a Cluster, a breaker per master (node-breakers.ts): one lost master fails only its own keys. */
  readonly nodes: StoreNodes | undefined;
  private readonly connection: RedisStoreConnection;
  protected readonly ports: StorePorts;

  /** @param connection a REDIS_URL, or the settings naming a Cluster or Sentinel topology. */
  constructor(connection: string | RedisClientSettings, prefix: string, options: RedisStoreOptions = {}) {
    super();
    this.connection = new RedisStoreConnection(connection, prefix, options);
    this.nodes = this.connection.nodes;
    this.ports = {
      clients: new RedisClientStore(this.connection),
      serviceAccounts: new RedisServiceAccountStore(this.connection),
      sharedValues: new RedisSharedValues(this.connection),
      counters: new RedisCounterStore(this.connection),
      sessions: new RedisSessionStore(this.connection),
    };
  }

  /** What the layout check moved, once it ran. */
  get migration(): MigrationResult | undefined {
    return this.connection.migration;
  }

  // Lifecycle (redis/connection.ts); every other method goes to its port's adapter (ported-store.ts, redis/).
  /** Connects and brings the keys to the current layout; an old layout on a Cluster is refused (OldLayoutOnClusterError). */
  connect(): Promise<void> {
    return this.connection.connect();
  }
  /** On a Cluster: some master answers (a lost one fails only its own keys; see nodes). */
  ping(): Promise<void> {
    return this.connection.ping();
  }
  close(): Promise<void> {
    return this.connection.close();
  }
  countCredentials(): Promise<CredentialCounts> {
    return this.connection.countCredentials();
  }
  repairIndexes(options?: RepairOptions): Promise<RepairReport> {
    return this.connection.repairIndexes(options);
  }
  persistence(): Promise<PersistenceReport> {
    return this.connection.persistence();
  }
}
