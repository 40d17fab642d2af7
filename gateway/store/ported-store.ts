// What both stores share: a credential store made of one adapter per port. RedisCredentialStore and
// EmbeddedCredentialStore build their adapters and add their own lifecycle; every port method is
// forwarded here, once.
import type { RateLimitDecision, RateQuota } from './gcra.js';
import type { AttemptLimit, AttemptReservation, CounterStore } from './ports/counters.js';
import type { BearerState, ClientChange, ClientRecord, ClientStore, ClientUse, OneTimeJwt } from './ports/clients.js';
import type { Page, PageRequest } from './ports/paging.js';
import type {
  KeyAddOutcome,
  KeyChange,
  KeyRemoveOutcome,
  NonceConsumption,
  ServiceAccountChange,
  ServiceAccountKey,
  ServiceAccountRecord,
  ServiceAccountStore,
  ServiceAccountUse,
  SignedRequestState,
} from './ports/service-accounts.js';
import type { SessionStore } from './ports/sessions.js';
import type { SharedValues } from './ports/shared-values.js';

export interface StorePorts {
  readonly clients: ClientStore;
  readonly serviceAccounts: ServiceAccountStore;
  readonly sharedValues: SharedValues;
  readonly counters: CounterStore;
  readonly sessions: SessionStore;
}

export abstract class PortedStore implements ClientStore, ServiceAccountStore, SharedValues, CounterStore, SessionStore {
  protected abstract readonly ports: StorePorts;

  // OAuth clients and tokens
  createClient(client: ClientRecord): Promise<boolean> {
    return this.ports.clients.createClient(client);
  }
  getClient(clientId: string): Promise<ClientRecord | null> {
    return this.ports.clients.getClient(clientId);
  }
  listClients(page: PageRequest): Promise<Page<ClientRecord>> {
    return this.ports.clients.listClients(page);
  }
  deleteClient(clientId: string): Promise<boolean> {
    return this.ports.clients.deleteClient(clientId);
  }
  rollClientSecret(clientId: string, secretHash: string, graceSeconds: number): Promise<ClientRecord | null> {
    return this.ports.clients.rollClientSecret(clientId, secretHash, graceSeconds);
  }
  updateClient(clientId: string, change: (client: ClientRecord) => ClientChange): Promise<ClientRecord | null> {
    return this.ports.clients.updateClient(clientId, change);
  }
  revokeToken(clientId: string, jti: string, expiresAtSeconds: number): Promise<void> {
    return this.ports.clients.revokeToken(clientId, jti, expiresAtSeconds);
  }
  consumeTokenId(clientId: string, use: OneTimeJwt, jti: string, expiresAtSeconds: number): Promise<boolean> {
    return this.ports.clients.consumeTokenId(clientId, use, jti, expiresAtSeconds);
  }
  bearerState(clientId: string, jti: string, kid: string): Promise<BearerState> {
    return this.ports.clients.bearerState(clientId, jti, kid);
  }
  retireSigningKey(kid: string, untilSeconds: number): Promise<void> {
    return this.ports.clients.retireSigningKey(kid, untilSeconds);
  }
  recordClientUse(uses: readonly ClientUse[]): Promise<void> {
    return this.ports.clients.recordClientUse(uses);
  }
  clientLastUses(clientIds: readonly string[]): Promise<(string | null)[]> {
    return this.ports.clients.clientLastUses(clientIds);
  }

  // Service accounts
  createServiceAccount(account: ServiceAccountRecord): Promise<boolean> {
    return this.ports.serviceAccounts.createServiceAccount(account);
  }
  getServiceAccount(id: string): Promise<ServiceAccountRecord | null> {
    return this.ports.serviceAccounts.getServiceAccount(id);
  }
  listServiceAccounts(page: PageRequest): Promise<Page<ServiceAccountRecord>> {
    return this.ports.serviceAccounts.listServiceAccounts(page);
  }
  findServiceAccountByAccessId(accessId: string): Promise<ServiceAccountRecord | null> {
    return this.ports.serviceAccounts.findServiceAccountByAccessId(accessId);
  }
  deleteServiceAccount(id: string): Promise<boolean> {
    return this.ports.serviceAccounts.deleteServiceAccount(id);
  }
  deleteServiceAccountByAccessId(accessId: string): Promise<string | null> {
    return this.ports.serviceAccounts.deleteServiceAccountByAccessId(accessId);
  }
  serviceAccountForRequest(accessId: string, nonce: string): Promise<SignedRequestState> {
    return this.ports.serviceAccounts.serviceAccountForRequest(accessId, nonce);
  }
  consumeNonce(accessId: string, nonce: string, nonceTtlSeconds: number, version?: string, createdSeconds?: number): Promise<NonceConsumption> {
    return this.ports.serviceAccounts.consumeNonce(accessId, nonce, nonceTtlSeconds, version, createdSeconds);
  }
  updateServiceAccount(id: string, change: ServiceAccountChange): Promise<ServiceAccountRecord | null> {
    return this.ports.serviceAccounts.updateServiceAccount(id, change);
  }
  addServiceAccountKey(id: string, key: ServiceAccountKey): Promise<KeyChange<KeyAddOutcome>> {
    return this.ports.serviceAccounts.addServiceAccountKey(id, key);
  }
  removeServiceAccountKey(id: string, fingerprint: string): Promise<KeyChange<KeyRemoveOutcome>> {
    return this.ports.serviceAccounts.removeServiceAccountKey(id, fingerprint);
  }
  recordServiceAccountUse(uses: ServiceAccountUse[]): Promise<void> {
    return this.ports.serviceAccounts.recordServiceAccountUse(uses);
  }

  // Shared values
  getMeta(name: string): Promise<string | null> {
    return this.ports.sharedValues.getMeta(name);
  }
  compareAndSetMeta(name: string, expected: string | null, value: string): Promise<boolean> {
    return this.ports.sharedValues.compareAndSetMeta(name, expected, value);
  }
  watchMeta(name: string, onChange: () => void): () => void {
    return this.ports.sharedValues.watchMeta(name, onChange);
  }

  // Failure counters and rate limits
  reserveAttempt(limits: AttemptLimit[], windowSeconds: number): Promise<AttemptReservation> {
    return this.ports.counters.reserveAttempt(limits, windowSeconds);
  }
  releaseAttempt(keys: string[]): Promise<void> {
    return this.ports.counters.releaseAttempt(keys);
  }
  checkAttempt(limits: AttemptLimit[]): Promise<AttemptReservation> {
    return this.ports.counters.checkAttempt(limits);
  }
  takeRateLimit(credentialId: string, routeId: string, rule: RateQuota): Promise<RateLimitDecision> {
    return this.ports.counters.takeRateLimit(credentialId, routeId, rule);
  }

  // Dashboard sessions
  putSession(id: string, data: string, ttlSeconds: number): Promise<void> {
    return this.ports.sessions.putSession(id, data, ttlSeconds);
  }
  getSession(id: string): Promise<string | null> {
    return this.ports.sessions.getSession(id);
  }
  deleteSession(id: string): Promise<void> {
    return this.ports.sessions.deleteSession(id);
  }
}
