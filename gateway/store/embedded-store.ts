// The embedded single-process store, used when REDIS_URL is unset (development, the README
// walkthrough). Durable records are snapshotted to one JSON file, written to a temporary file and
// renamed over the old one, so a crash never leaves a half-written snapshot.
import { mkdirSync, readFileSync, renameSync, writeFileSync, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { decodeCursor, pageOf } from './page-cursor.js';
import type {
  AttemptLimit,
  AttemptReservation,
  BearerState,
  ClientRecord,
  CredentialStore,
  NonceConsumption,
  Page,
  PageRequest,
  ServiceAccountRecord,
  ServiceAccountUse,
  SignedRequestState,
  KeyAddOutcome,
  KeyChange,
  KeyRemoveOutcome,
  ServiceAccountKey,
} from './types.js';
import { addingKey, removingKey } from './service-account-keys.js';
import { gcraStep, spacingOf, type RateLimitDecision, type RateQuota } from './gcra.js';
import { rolledClient } from './client-secret-roll.js';
import { frozenAccount, frozenClient } from './frozen-records.js';
import { NonceSet } from './nonce-set.js';

interface Expiring {
  value: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

interface Snapshot {
  clients: Record<string, ClientRecord>;
  serviceAccounts: Record<string, ServiceAccountRecord>;
  meta: Record<string, string>;
  revoked: Record<string, number>;
  /** Absent in snapshots written before signing keys could be retired. */
  retiredSigningKeys?: Record<string, number>;
}

/** A map whose entries lapse; expired entries are dropped when read or swept. */
class ExpiringMap {
  private readonly entries = new Map<string, Expiring>();

  constructor(private readonly now: () => number) {}

  get(key: string, now = this.now()): string | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: string, ttlMs: number): void {
    this.entries.set(key, { value, expiresAt: this.now() + ttlMs });
  }

  expiresAt(key: string): number | undefined {
    return this.get(key) === undefined ? undefined : this.entries.get(key)!.expiresAt;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  sweep(now = this.now()): void {
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
  }
}

export interface EmbeddedStoreOptions {
  /** Epoch milliseconds; every expiry the store keeps is measured on it (tests pass a clock they move). */
  now?: () => number;
}

export class EmbeddedCredentialStore implements CredentialStore {
  readonly kind = 'embedded' as const;
  private readonly clients = new Map<string, ClientRecord>();
  /** By Access ID, the key of the hot path. */
  private readonly accountsByAccessId = new Map<string, ServiceAccountRecord>();
  private readonly accessIdById = new Map<string, string>();
  /** By Access ID: the version of the account's record, renewed when it is created, loaded or changed (not on use). */
  private readonly accountVersions = new Map<string, string>();
  private lastVersion = 0;
  private readonly meta = new Map<string, string>();
  private readonly metaWatchers = new Map<string, Set<() => void>>();
  /** jti -> expiry (epoch seconds). */
  private readonly revoked = new Map<string, number>();
  /** Retired JWT signing key kid -> until when its tokens fail (epoch seconds). */
  private readonly retiredSigningKeys = new Map<string, number>();
  private readonly now: () => number;
  private readonly nonces: NonceSet;
  private readonly failures: ExpiringMap;
  /** Rate-limit TATs (epoch microseconds) by credential and route, each kept until it has passed. */
  private readonly rateLimits: ExpiringMap;
  private readonly sessions: ExpiringMap;
  private readonly sweeper: NodeJS.Timeout;

  /** @param snapshotPath where durable records are kept; undefined keeps them in memory only. */
  constructor(
    private readonly snapshotPath?: string,
    options: EmbeddedStoreOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.nonces = new NonceSet(this.now);
    this.failures = new ExpiringMap(this.now);
    this.rateLimits = new ExpiringMap(this.now);
    this.sessions = new ExpiringMap(this.now);
    if (snapshotPath && existsSync(snapshotPath)) this.restore(JSON.parse(readFileSync(snapshotPath, 'utf8')) as Snapshot);
    // Housekeeping on a real timer: reads drop what has lapsed on the store's clock by themselves; the sweep frees what nobody reads.
    this.sweeper = setInterval(() => this.sweep(), 30_000);
    this.sweeper.unref();
  }

  private restore(snapshot: Snapshot): void {
    for (const [id, c] of Object.entries(snapshot.clients ?? {})) this.clients.set(id, frozenClient(c));
    for (const a of Object.values(snapshot.serviceAccounts ?? {})) {
      this.accountsByAccessId.set(a.accessId, frozenAccount(a));
      this.accessIdById.set(a.id, a.accessId);
      this.renewVersion(a.accessId);
    }
    for (const [k, v] of Object.entries(snapshot.meta ?? {})) this.meta.set(k, v);
    for (const [k, v] of Object.entries(snapshot.revoked ?? {})) this.revoked.set(k, v);
    for (const [k, v] of Object.entries(snapshot.retiredSigningKeys ?? {})) this.retiredSigningKeys.set(k, v);
  }

  private persist(): void {
    if (!this.snapshotPath) return;
    const snapshot: Snapshot = {
      clients: Object.fromEntries(this.clients),
      serviceAccounts: Object.fromEntries(this.accountsByAccessId),
      meta: Object.fromEntries(this.meta),
      revoked: Object.fromEntries(this.revoked),
      retiredSigningKeys: Object.fromEntries(this.retiredSigningKeys),
    };
    mkdirSync(dirname(this.snapshotPath), { recursive: true, mode: 0o700 });
    const temporary = `${this.snapshotPath}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(snapshot), { mode: 0o600 });
    renameSync(temporary, this.snapshotPath);
  }

  private sweep(): void {
    const nowSeconds = this.now() / 1000;
    for (const [jti, exp] of this.revoked) if (exp < nowSeconds) this.revoked.delete(jti);
    for (const [kid, until] of this.retiredSigningKeys) if (until <= nowSeconds) this.retiredSigningKeys.delete(kid);
    this.nonces.sweep();
    this.failures.sweep();
    this.rateLimits.sweep();
    this.sessions.sweep();
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }

  async createClient(client: ClientRecord): Promise<boolean> {
    if (this.clients.has(client.clientId)) return false;
    this.clients.set(client.clientId, frozenClient(structuredClone(client)));
    this.persist();
    return true;
  }

  async getClient(clientId: string): Promise<ClientRecord | null> {
    const client = this.clients.get(clientId);
    return client ? structuredClone(client) : null;
  }

  async listClients(page: PageRequest): Promise<Page<ClientRecord>> {
    const ids = idsAfter(this.clients.keys(), page);
    return pageOf(ids, ids.slice(0, page.limit).map((id) => structuredClone(this.clients.get(id)!)), page.limit);
  }

  async deleteClient(clientId: string): Promise<boolean> {
    const deleted = this.clients.delete(clientId);
    if (deleted) this.persist();
    return deleted;
  }

  async rollClientSecret(clientId: string, secretHash: string, graceSeconds: number): Promise<ClientRecord | null> {
    // No await from read to write: on one thread, no other change can come in between.
    const client = this.clients.get(clientId);
    if (!client) return null;
    const rolled = frozenClient(structuredClone(rolledClient(client, secretHash, graceSeconds, this.now())));
    this.clients.set(clientId, rolled);
    this.persist();
    return structuredClone(rolled);
  }

  async revokeToken(_clientId: string, jti: string, expiresAtSeconds: number): Promise<void> {
    this.revoked.set(jti, expiresAtSeconds + 60);
    this.persist();
  }

  async bearerState(clientId: string, jti: string, kid: string): Promise<BearerState> {
    const client = this.clients.get(clientId);
    const nowSeconds = this.now() / 1000;
    const exp = this.revoked.get(jti);
    const keyRetiredUntil = this.retiredSigningKeys.get(kid);
    // Stored frozen: handed out as is on the hot path, without a copy per request.
    return { client: client ?? null, revoked: exp !== undefined && exp >= nowSeconds, signingKeyRetired: keyRetiredUntil !== undefined && keyRetiredUntil > nowSeconds };
  }

  async retireSigningKey(kid: string, untilSeconds: number): Promise<void> {
    this.retiredSigningKeys.set(kid, untilSeconds);
    this.persist();
  }

  async getMeta(name: string): Promise<string | null> {
    return this.meta.get(name) ?? null;
  }

  async compareAndSetMeta(name: string, expected: string | null, value: string): Promise<boolean> {
    if ((this.meta.get(name) ?? null) !== expected) return false;
    this.meta.set(name, value);
    this.persist();
    // One process: every watcher hears of the change before the writer's call returns.
    for (const onChange of [...(this.metaWatchers.get(name) ?? [])]) onChange();
    return true;
  }

  watchMeta(name: string, onChange: () => void): () => void {
    const watchers = this.metaWatchers.get(name) ?? new Set();
    this.metaWatchers.set(name, watchers.add(onChange));
    return () => {
      watchers.delete(onChange);
      if (watchers.size === 0 && this.metaWatchers.get(name) === watchers) this.metaWatchers.delete(name);
    };
  }

  async createServiceAccount(account: ServiceAccountRecord): Promise<boolean> {
    if (this.accessIdById.has(account.id) || this.accountsByAccessId.has(account.accessId)) return false;
    this.accountsByAccessId.set(account.accessId, frozenAccount({ ...structuredClone(account), lastUsedAt: null, lastUsedIp: null }));
    this.accessIdById.set(account.id, account.accessId);
    this.renewVersion(account.accessId);
    this.persist();
    return true;
  }

  async getServiceAccount(id: string): Promise<ServiceAccountRecord | null> {
    const accessId = this.accessIdById.get(id);
    const account = accessId ? this.accountsByAccessId.get(accessId) : undefined;
    return account ? structuredClone(account) : null;
  }

  async listServiceAccounts(page: PageRequest): Promise<Page<ServiceAccountRecord>> {
    const ids = idsAfter(this.accessIdById.keys(), page);
    return pageOf(ids, ids.slice(0, page.limit).map((id) => structuredClone(this.accountsByAccessId.get(this.accessIdById.get(id)!)!)), page.limit);
  }

  async findServiceAccountByAccessId(accessId: string): Promise<ServiceAccountRecord | null> {
    const account = this.accountsByAccessId.get(accessId);
    return account ? structuredClone(account) : null;
  }

  async deleteServiceAccountByAccessId(accessId: string): Promise<string | null> {
    const account = this.accountsByAccessId.get(accessId);
    return account && (await this.deleteServiceAccount(account.id)) ? account.id : null;
  }

  async deleteServiceAccount(id: string): Promise<boolean> {
    const accessId = this.accessIdById.get(id);
    if (!accessId) return false;
    this.accessIdById.delete(id);
    this.accountsByAccessId.delete(accessId);
    this.accountVersions.delete(accessId);
    this.persist();
    return true;
  }

  async serviceAccountForRequest(accessId: string, nonce: string): Promise<SignedRequestState> {
    const account = this.accountsByAccessId.get(accessId);
    if (!account) return { account: null, nonceUsed: false };
    // Stored frozen: handed out as is on the hot path, without a copy per request.
    return { account, nonceUsed: this.nonces.has(accessId, nonce), version: this.accountVersions.get(accessId)! };
  }

  async consumeNonce(accessId: string, nonce: string, nonceTtlSeconds: number, version?: string): Promise<NonceConsumption> {
    if (!this.accountsByAccessId.has(accessId)) return 'account_gone';
    if (version !== undefined && this.accountVersions.get(accessId) !== version) return 'account_changed';
    return this.nonces.addIfAbsent(accessId, nonce, nonceTtlSeconds * 1000) ? 'fresh' : 'used';
  }

  async addServiceAccountKey(id: string, key: ServiceAccountKey): Promise<KeyChange<KeyAddOutcome>> {
    return this.changeAccount(id, (account) => addingKey(account, structuredClone(key)));
  }

  async removeServiceAccountKey(id: string, fingerprint: string): Promise<KeyChange<KeyRemoveOutcome>> {
    return this.changeAccount(id, (account) => removingKey(account, fingerprint));
  }

  /** No await from read to write: on one thread, no other change can come in between. */
  private changeAccount<O extends string>(id: string, change: (account: ServiceAccountRecord) => { outcome: O; account: ServiceAccountRecord }): Promise<KeyChange<O | 'account_not_found'>> {
    const accessId = this.accessIdById.get(id);
    const current = accessId ? this.accountsByAccessId.get(accessId) : undefined;
    if (!accessId || !current) return Promise.resolve({ outcome: 'account_not_found', account: null });
    const { outcome, account } = change(current);
    if (account !== current) {
      this.accountsByAccessId.set(accessId, frozenAccount(account));
      this.renewVersion(accessId);
      this.persist();
    }
    return Promise.resolve({ outcome, account: structuredClone(account) });
  }

  private renewVersion(accessId: string): void {
    this.accountVersions.set(accessId, String(++this.lastVersion));
  }

  async recordServiceAccountUse(uses: ServiceAccountUse[]): Promise<void> {
    let changed = false;
    for (const use of uses) {
      const account = this.accountsByAccessId.get(use.accessId);
      if (!account) continue;
      this.accountsByAccessId.set(use.accessId, frozenAccount({ ...account, lastUsedAt: use.at, lastUsedIp: use.ip }));
      changed = true;
    }
    if (changed) this.persist();
  }

  async checkAttempt(limits: AttemptLimit[]): Promise<AttemptReservation> {
    return this.blocking(limits, this.now()) ?? { allowed: true, retryAfterSeconds: 0 };
  }

  /** The refusal when a key is at its max, else undefined. */
  private blocking(limits: AttemptLimit[], now: number): AttemptReservation | undefined {
    let blockedUntil: number | undefined;
    for (const { key, max } of limits) {
      if (Number(this.failures.get(key, now) ?? 0) >= max) blockedUntil = Math.max(blockedUntil ?? now, this.failures.expiresAt(key) ?? now);
    }
    return blockedUntil === undefined ? undefined : { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((blockedUntil - now) / 1000)) };
  }

  async reserveAttempt(limits: AttemptLimit[], windowSeconds: number): Promise<AttemptReservation> {
    // No await from check to count: on one thread, no other attempt can come in between.
    const now = this.now();
    const blocked = this.blocking(limits, now);
    if (blocked) return blocked;
    for (const { key } of limits) {
      const expiresAt = this.failures.expiresAt(key) ?? now + windowSeconds * 1000;
      this.failures.set(key, String(Number(this.failures.get(key) ?? 0) + 1), expiresAt - this.now());
    }
    return { allowed: true, retryAfterSeconds: 0 };
  }

  async releaseAttempt(keys: string[]): Promise<void> {
    for (const key of keys) {
      const count = Number(this.failures.get(key) ?? 0);
      const expiresAt = this.failures.expiresAt(key);
      if (count > 1 && expiresAt !== undefined) this.failures.set(key, String(count - 1), expiresAt - this.now());
      else this.failures.delete(key);
    }
  }

  async takeRateLimit(credentialId: string, routeId: string, rule: RateQuota): Promise<RateLimitDecision> {
    // No await from read to write: on one thread, no other request can come in between.
    const key = `${credentialId}\n${routeId}`;
    const nowUs = this.now() * 1000;
    const stored = this.rateLimits.get(key);
    const { decision, newTatUs } = gcraStep(stored === undefined ? undefined : Number(stored), nowUs, spacingOf(rule));
    if (newTatUs !== undefined) this.rateLimits.set(key, String(newTatUs), Math.ceil((newTatUs - nowUs) / 1000));
    return decision;
  }

  async putSession(id: string, data: string, ttlSeconds: number): Promise<void> {
    this.sessions.set(id, data, ttlSeconds * 1000);
  }

  async getSession(id: string): Promise<string | null> {
    return this.sessions.get(id) ?? null;
  }

  async deleteSession(id: string): Promise<void> {
    this.sessions.delete(id);
  }
}

/** Up to limit + 1 ids after the page's cursor, in id order (the extra one says more follow). */
function idsAfter(ids: Iterable<string>, page: PageRequest): string[] {
  const after = decodeCursor(page.cursor);
  const sorted = [...ids].filter((id) => after === undefined || id > after).sort();
  return sorted.slice(0, page.limit + 1);
}
