// The embedded single-process store, used when REDIS_URL is unset (development, the README
// walkthrough): one adapter per port (memory/), sharing the store's clock and its snapshot. Durable
// records are snapshotted to one JSON file after every change (memory/snapshot-file.ts).
import type { RateLimitDecision, RateQuota } from './gcra.js';
import { MemoryClientStore } from './memory/clients.js';
import type { MemoryContext } from './memory/context.js';
import { MemoryCounterStore } from './memory/counters.js';
import { MemoryServiceAccountStore } from './memory/service-accounts.js';
import { MemorySessionStore } from './memory/sessions.js';
import { MemorySharedValues } from './memory/shared-values.js';
import { readSnapshot, writeSnapshot } from './memory/snapshot-file.js';
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
  ServiceAccountKey,
  ServiceAccountRecord,
  ServiceAccountUse,
  SignedRequestState,
} from './types.js';

export interface EmbeddedStoreOptions {
  /** Epoch milliseconds; every expiry the store keeps is measured on it (tests pass a clock they move). */
  now?: () => number;
}

export class EmbeddedCredentialStore implements CredentialStore {
  readonly kind = 'embedded' as const;
  private readonly clients: MemoryClientStore;
  private readonly serviceAccounts: MemoryServiceAccountStore;
  private readonly sharedValues: MemorySharedValues;
  private readonly counters: MemoryCounterStore;
  private readonly sessions: MemorySessionStore;
  private readonly sweeper: NodeJS.Timeout;

  /** @param snapshotPath where durable records are kept; undefined keeps them in memory only. */
  constructor(
    private readonly snapshotPath?: string,
    options: EmbeddedStoreOptions = {},
  ) {
    const context: MemoryContext = { now: options.now ?? Date.now, persist: () => this.persist() };
    this.clients = new MemoryClientStore(context);
    this.serviceAccounts = new MemoryServiceAccountStore(context);
    this.sharedValues = new MemorySharedValues(context);
    this.counters = new MemoryCounterStore(context);
    this.sessions = new MemorySessionStore(context);
    const snapshot = snapshotPath ? readSnapshot(snapshotPath) : undefined;
    if (snapshot) for (const durable of [this.clients, this.serviceAccounts, this.sharedValues]) durable.restore(snapshot);
    // Housekeeping on a real timer: reads drop what has lapsed on the store's clock by themselves; the sweep frees what nobody reads.
    this.sweeper = setInterval(() => this.sweep(), 30_000);
    this.sweeper.unref();
  }

  private persist(): void {
    if (!this.snapshotPath) return;
    const { clients, revoked, retiredSigningKeys } = this.clients.snapshot();
    writeSnapshot(this.snapshotPath, { clients, serviceAccounts: this.serviceAccounts.snapshot(), meta: this.sharedValues.snapshot(), revoked, retiredSigningKeys });
  }

  private sweep(): void {
    for (const adapter of [this.clients, this.serviceAccounts, this.counters, this.sessions]) adapter.sweep();
  }

  // Lifecycle: ready once made; nothing to reach, so nothing to repair.
  async ping(): Promise<void> {}
  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }

  // OAuth clients and tokens (memory/clients.ts)
  createClient(client: ClientRecord): Promise<boolean> { return this.clients.createClient(client); }
  getClient(clientId: string): Promise<ClientRecord | null> { return this.clients.getClient(clientId); }
  listClients(page: PageRequest): Promise<Page<ClientRecord>> { return this.clients.listClients(page); }
  deleteClient(clientId: string): Promise<boolean> { return this.clients.deleteClient(clientId); }
  rollClientSecret(clientId: string, secretHash: string, graceSeconds: number): Promise<ClientRecord | null> { return this.clients.rollClientSecret(clientId, secretHash, graceSeconds); }
  revokeToken(clientId: string, jti: string, expiresAtSeconds: number): Promise<void> { return this.clients.revokeToken(clientId, jti, expiresAtSeconds); }
  bearerState(clientId: string, jti: string, kid: string): Promise<BearerState> { return this.clients.bearerState(clientId, jti, kid); }
  retireSigningKey(kid: string, untilSeconds: number): Promise<void> { return this.clients.retireSigningKey(kid, untilSeconds); }

  // Service accounts (memory/service-accounts.ts)
  createServiceAccount(account: ServiceAccountRecord): Promise<boolean> { return this.serviceAccounts.createServiceAccount(account); }
  getServiceAccount(id: string): Promise<ServiceAccountRecord | null> { return this.serviceAccounts.getServiceAccount(id); }
  listServiceAccounts(page: PageRequest): Promise<Page<ServiceAccountRecord>> { return this.serviceAccounts.listServiceAccounts(page); }
  findServiceAccountByAccessId(accessId: string): Promise<ServiceAccountRecord | null> { return this.serviceAccounts.findServiceAccountByAccessId(accessId); }
  deleteServiceAccount(id: string): Promise<boolean> { return this.serviceAccounts.deleteServiceAccount(id); }
  deleteServiceAccountByAccessId(accessId: string): Promise<string | null> { return this.serviceAccounts.deleteServiceAccountByAccessId(accessId); }
  serviceAccountForRequest(accessId: string, nonce: string): Promise<SignedRequestState> { return this.serviceAccounts.serviceAccountForRequest(accessId, nonce); }
  consumeNonce(accessId: string, nonce: string, nonceTtlSeconds: number, version?: string): Promise<NonceConsumption> { return this.serviceAccounts.consumeNonce(accessId, nonce, nonceTtlSeconds, version); }
  addServiceAccountKey(id: string, key: ServiceAccountKey): Promise<KeyChange<KeyAddOutcome>> { return this.serviceAccounts.addServiceAccountKey(id, key); }
  removeServiceAccountKey(id: string, fingerprint: string): Promise<KeyChange<KeyRemoveOutcome>> { return this.serviceAccounts.removeServiceAccountKey(id, fingerprint); }
  recordServiceAccountUse(uses: ServiceAccountUse[]): Promise<void> { return this.serviceAccounts.recordServiceAccountUse(uses); }

  // Shared values (memory/shared-values.ts)
  getMeta(name: string): Promise<string | null> { return this.sharedValues.getMeta(name); }
  compareAndSetMeta(name: string, expected: string | null, value: string): Promise<boolean> { return this.sharedValues.compareAndSetMeta(name, expected, value); }
  watchMeta(name: string, onChange: () => void): () => void { return this.sharedValues.watchMeta(name, onChange); }

  // Failure counters and rate limits (memory/counters.ts)
  reserveAttempt(limits: AttemptLimit[], windowSeconds: number): Promise<AttemptReservation> { return this.counters.reserveAttempt(limits, windowSeconds); }
  releaseAttempt(keys: string[]): Promise<void> { return this.counters.releaseAttempt(keys); }
  checkAttempt(limits: AttemptLimit[]): Promise<AttemptReservation> { return this.counters.checkAttempt(limits); }
  takeRateLimit(credentialId: string, routeId: string, rule: RateQuota): Promise<RateLimitDecision> { return this.counters.takeRateLimit(credentialId, routeId, rule); }

  // Dashboard sessions (memory/sessions.ts)
  putSession(id: string, data: string, ttlSeconds: number): Promise<void> { return this.sessions.putSession(id, data, ttlSeconds); }
  getSession(id: string): Promise<string | null> { return this.sessions.getSession(id); }
  deleteSession(id: string): Promise<void> { return this.sessions.deleteSession(id); }
}
