// Service accounts in the embedded store: the records by Access ID (the key of the hot path),
// durable (in the snapshot), and the used nonces, which are not. No await from read to write
// anywhere: on one thread, no other change can come in between.
import { frozenAccount } from '../frozen-records.js';
import { NonceSet } from '../nonce-set.js';
import { pageOf, positionOf } from '../page-cursor.js';
import { addingKey, removingKey } from '../service-account-keys.js';
import type {
  KeyAddOutcome,
  KeyChange,
  KeyRemoveOutcome,
  NonceConsumption,
  Page,
  PageRequest,
  ServiceAccountChange,
  ServiceAccountKey,
  ServiceAccountRecord,
  ServiceAccountStore,
  ServiceAccountUse,
  SignedRequestState,
} from '../types.js';
import type { MemoryContext } from './context.js';
import { positionsAfter } from './paging.js';
import type { Snapshot } from './snapshot-file.js';

export class MemoryServiceAccountStore implements ServiceAccountStore {
  /** By Access ID, the key of the hot path. */
  private readonly accountsByAccessId = new Map<string, ServiceAccountRecord>();
  private readonly accessIdById = new Map<string, string>();
  /** By Access ID: the version of the account's record, renewed when it is created, loaded or changed (not on use). */
  private readonly accountVersions = new Map<string, string>();
  private lastVersion = 0;
  private readonly nonces: NonceSet;

  get count(): number {
    return this.accountsByAccessId.size;
  }

  constructor(private readonly context: MemoryContext) {
    this.nonces = new NonceSet(context.now);
  }

  restore(snapshot: Snapshot): void {
    for (const a of Object.values(snapshot.serviceAccounts ?? {})) {
      this.accountsByAccessId.set(a.accessId, frozenAccount(a));
      this.accessIdById.set(a.id, a.accessId);
      this.renewVersion(a.accessId);
    }
  }

  snapshot(): Snapshot['serviceAccounts'] {
    return Object.fromEntries(this.accountsByAccessId);
  }

  /** Forgets the nonces that have expired. */
  sweep(): void {
    this.nonces.sweep();
  }

  async createServiceAccount(account: ServiceAccountRecord): Promise<boolean> {
    if (this.accessIdById.has(account.id) || this.accountsByAccessId.has(account.accessId)) return false;
    this.accountsByAccessId.set(account.accessId, frozenAccount({ ...structuredClone(account), lastUsedAt: null, lastUsedIp: null }));
    this.accessIdById.set(account.id, account.accessId);
    this.renewVersion(account.accessId);
    this.context.persist();
    return true;
  }

  async getServiceAccount(id: string): Promise<ServiceAccountRecord | null> {
    const accessId = this.accessIdById.get(id);
    const account = accessId ? this.accountsByAccessId.get(accessId) : undefined;
    return account ? structuredClone(account) : null;
  }

  async listServiceAccounts(page: PageRequest): Promise<Page<ServiceAccountRecord>> {
    const positions = positionsAfter(
      Array.from(this.accountsByAccessId.values(), (a) => positionOf(a.id, a.createdAt)),
      page,
    );
    return pageOf(
      positions,
      positions.slice(0, page.limit).map(({ id }) => structuredClone(this.accountsByAccessId.get(this.accessIdById.get(id)!)!)),
      page.limit,
    );
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
    this.context.persist();
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

  async updateServiceAccount(id: string, change: ServiceAccountChange): Promise<ServiceAccountRecord | null> {
    return (await this.changeAccount(id, (account) => ({ outcome: 'updated', account: { ...account, ...structuredClone(change) } }))).account;
  }

  async addServiceAccountKey(id: string, key: ServiceAccountKey): Promise<KeyChange<KeyAddOutcome>> {
    return this.changeAccount(id, (account) => addingKey(account, structuredClone(key)));
  }

  async removeServiceAccountKey(id: string, fingerprint: string): Promise<KeyChange<KeyRemoveOutcome>> {
    return this.changeAccount(id, (account) => removingKey(account, fingerprint));
  }

  private changeAccount<O extends string>(
    id: string,
    change: (account: ServiceAccountRecord) => { outcome: O; account: ServiceAccountRecord },
  ): Promise<KeyChange<O | 'account_not_found'>> {
    const accessId = this.accessIdById.get(id);
    const current = accessId ? this.accountsByAccessId.get(accessId) : undefined;
    if (!accessId || !current) return Promise.resolve({ outcome: 'account_not_found', account: null });
    const { outcome, account } = change(current);
    if (account !== current) {
      this.accountsByAccessId.set(accessId, frozenAccount(account));
      this.renewVersion(accessId);
      this.context.persist();
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
      const publicKeys = account.publicKeys.map((key) => (key.fingerprint === use.fingerprint ? { ...key, lastUsedAt: use.at } : key));
      this.accountsByAccessId.set(use.accessId, frozenAccount({ ...account, publicKeys, lastUsedAt: use.at, lastUsedIp: use.ip }));
      changed = true;
    }
    if (changed) this.context.persist();
  }
}
