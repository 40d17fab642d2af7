// Credential store on Redis (one server, a master behind Sentinel, or a Cluster), shared by every
// gateway instance: one adapter per port (redis/), all over one connection (redis/connection.ts)
// that fails fast and closed. The key layout (redis-keys.ts) keeps every multi-key step on one
// credential in one Cluster slot; indexes are written in their own commands, before the record on
// create (listed-create.ts) and after it is gone on delete, and readers skip an index entry whose
// record is gone.
import type { RateLimitDecision, RateQuota } from './gcra.js';
import type { StoreNodes } from './node-breakers.js';
import type { RedisClientSettings } from './redis-connection.js';
import type { MigrationResult } from './redis-layout-migration.js';
import { RedisClientStore } from './redis/clients.js';
import { RedisStoreConnection, type RedisStoreOptions } from './redis/connection.js';
import { RedisCounterStore } from './redis/counters.js';
import { RedisServiceAccountStore } from './redis/service-accounts.js';
import { RedisSessionStore } from './redis/sessions.js';
import { RedisSharedValues } from './redis/shared-values.js';
import type {
  AttemptLimit,
  AttemptReservation,
  BearerState,
  ClientRecord,
  CredentialStore,
  KeyAddOutcome,
  KeyChange,
  KeyRemoveOutcome,
  NonceConsumption,
  Page,
  PageRequest,
  PersistenceReport,
  RepairOptions,
  RepairReport,
  ServiceAccountKey,
  ServiceAccountRecord,
  ServiceAccountUse,
  SignedRequestState,
} from './types.js';

export type { RedisStoreOptions } from './redis/connection.js';

export class RedisCredentialStore implements CredentialStore {
  readonly kind = 'redis' as const;
  /** On a Cluster, a breaker per master (node-breakers.ts): one lost master fails only its own keys. */
  readonly nodes: StoreNodes | undefined;
  private readonly connection: RedisStoreConnection;
  private readonly clients: RedisClientStore;
  private readonly serviceAccounts: RedisServiceAccountStore;
  private readonly sharedValues: RedisSharedValues;
  private readonly counters: RedisCounterStore;
  private readonly sessions: RedisSessionStore;

  /** @param connection a REDIS_URL, or the settings naming a Cluster or Sentinel topology. */
  constructor(connection: string | RedisClientSettings, prefix: string, options: RedisStoreOptions = {}) {
    this.connection = new RedisStoreConnection(connection, prefix, options);
    this.nodes = this.connection.nodes;
    this.clients = new RedisClientStore(this.connection);
    this.serviceAccounts = new RedisServiceAccountStore(this.connection);
    this.sharedValues = new RedisSharedValues(this.connection);
    this.counters = new RedisCounterStore(this.connection);
    this.sessions = new RedisSessionStore(this.connection);
  }

  /** What the layout check moved, once it ran. */
  get migration(): MigrationResult | undefined {
    return this.connection.migration;
  }

  // Lifecycle (redis/connection.ts)
  /** Connects and brings the keys to the current layout; an old layout on a Cluster is refused (OldLayoutOnClusterError). */
  connect(): Promise<void> { return this.connection.connect(); }
  /** On a Cluster: some master answers (a lost one fails only its own keys; see nodes). */
  ping(): Promise<void> { return this.connection.ping(); }
  close(): Promise<void> { return this.connection.close(); }
  repairIndexes(options?: RepairOptions): Promise<RepairReport> { return this.connection.repairIndexes(options); }
  persistence(): Promise<PersistenceReport> { return this.connection.persistence(); }

  // OAuth clients and tokens (redis/clients.ts)
  createClient(client: ClientRecord): Promise<boolean> { return this.clients.createClient(client); }
  getClient(clientId: string): Promise<ClientRecord | null> { return this.clients.getClient(clientId); }
  listClients(page: PageRequest): Promise<Page<ClientRecord>> { return this.clients.listClients(page); }
  deleteClient(clientId: string): Promise<boolean> { return this.clients.deleteClient(clientId); }
  rollClientSecret(clientId: string, secretHash: string, graceSeconds: number): Promise<ClientRecord | null> { return this.clients.rollClientSecret(clientId, secretHash, graceSeconds); }
  revokeToken(clientId: string, jti: string, expiresAtSeconds: number): Promise<void> { return this.clients.revokeToken(clientId, jti, expiresAtSeconds); }
  bearerState(clientId: string, jti: string, kid: string): Promise<BearerState> { return this.clients.bearerState(clientId, jti, kid); }
  retireSigningKey(kid: string, untilSeconds: number): Promise<void> { return this.clients.retireSigningKey(kid, untilSeconds); }

  // Service accounts (redis/service-accounts.ts)
  createServiceAccount(account: ServiceAccountRecord): Promise<boolean> { return this.serviceAccounts.createServiceAccount(account); }
  getServiceAccount(id: string): Promise<ServiceAccountRecord | null> { return this.serviceAccounts.getServiceAccount(id); }
  listServiceAccounts(page: PageRequest): Promise<Page<ServiceAccountRecord>> { return this.serviceAccounts.listServiceAccounts(page); }
  findServiceAccountByAccessId(accessId: string): Promise<ServiceAccountRecord | null> { return this.serviceAccounts.findServiceAccountByAccessId(accessId); }
  deleteServiceAccount(id: string): Promise<boolean> { return this.serviceAccounts.deleteServiceAccount(id); }
  deleteServiceAccountByAccessId(accessId: string): Promise<string | null> { return this.serviceAccounts.deleteServiceAccountByAccessId(accessId); }
  serviceAccountForRequest(accessId: string, nonce: string): Promise<SignedRequestState> { return this.serviceAccounts.serviceAccountForRequest(accessId, nonce); }
  consumeNonce(accessId: string, nonce: string, nonceTtlSeconds: number, version?: string, createdSeconds?: number): Promise<NonceConsumption> {
    return this.serviceAccounts.consumeNonce(accessId, nonce, nonceTtlSeconds, version, createdSeconds);
  }
  addServiceAccountKey(id: string, key: ServiceAccountKey): Promise<KeyChange<KeyAddOutcome>> { return this.serviceAccounts.addServiceAccountKey(id, key); }
  removeServiceAccountKey(id: string, fingerprint: string): Promise<KeyChange<KeyRemoveOutcome>> { return this.serviceAccounts.removeServiceAccountKey(id, fingerprint); }
  recordServiceAccountUse(uses: ServiceAccountUse[]): Promise<void> { return this.serviceAccounts.recordServiceAccountUse(uses); }

  // Shared values (redis/shared-values.ts)
  getMeta(name: string): Promise<string | null> { return this.sharedValues.getMeta(name); }
  compareAndSetMeta(name: string, expected: string | null, value: string): Promise<boolean> { return this.sharedValues.compareAndSetMeta(name, expected, value); }
  watchMeta(name: string, onChange: () => void): () => void { return this.sharedValues.watchMeta(name, onChange); }

  // Failure counters and rate limits (redis/counters.ts)
  reserveAttempt(limits: AttemptLimit[], windowSeconds: number): Promise<AttemptReservation> { return this.counters.reserveAttempt(limits, windowSeconds); }
  releaseAttempt(keys: string[]): Promise<void> { return this.counters.releaseAttempt(keys); }
  checkAttempt(limits: AttemptLimit[]): Promise<AttemptReservation> { return this.counters.checkAttempt(limits); }
  takeRateLimit(credentialId: string, routeId: string, rule: RateQuota): Promise<RateLimitDecision> { return this.counters.takeRateLimit(credentialId, routeId, rule); }

  // Dashboard sessions (redis/sessions.ts)
  putSession(id: string, data: string, ttlSeconds: number): Promise<void> { return this.sessions.putSession(id, data, ttlSeconds); }
  getSession(id: string): Promise<string | null> { return this.sessions.getSession(id); }
  deleteSession(id: string): Promise<void> { return this.sessions.deleteSession(id); }
}
