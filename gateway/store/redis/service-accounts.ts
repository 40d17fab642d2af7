// Service accounts on Redis. The record is kept by Access ID (the key of the hot path) with its
// last use in a key of its own beside it; an account is found by its id through a pointer key in
// its record's slot (account-ids.ts), never through an index. The index is written before the
// record on create (listed-create.ts) and after it is gone on delete.
import { sharesSlot } from '../account-ids.js';
import { accessIdsOf } from '../account-pointers.js';
import { createListed, DELETE_IF_EQUALS, DELETE_RECORD, type Claim } from '../listed-create.js';
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
import { changeAccount } from './account-change.js';
import type { RedisStoreConnection } from './connection.js';
import { consumeNonce, serviceAccountForRequest } from './signed-requests.js';
import { mgetGroups, positionsAfter } from './reads.js';
import { withUsage, type StoredServiceAccount } from './stored-account.js';

export class RedisServiceAccountStore implements ServiceAccountStore {
  constructor(private readonly connection: RedisStoreConnection) {}

  async createServiceAccount(account: ServiceAccountRecord): Promise<boolean> {
    const { keys } = this.connection;
    const { lastUsedAt: _at, lastUsedIp: _ip, ...stored } = account;
    const { id, accessId } = account;
    // The pointer claims the id, the record the Access ID: in one step when they share a slot (ids
    // from account-ids.ts), else the pointer first.
    const pointer: Claim = [keys.accountPointer(id), keys.accountPointerVoid(id), accessId];
    const record: Claim = [keys.account(accessId), keys.accountVoid(accessId), JSON.stringify(stored)];
    const steps = sharesSlot(id, accessId) ? [[pointer, record]] : [[pointer], [record]];
    return this.connection.guard(() => createListed(this.connection.redis, keys.accountIndex, positionOf(id, account.createdAt), steps));
  }

  /** The Access IDs behind ids (null: none), found without the list index (account-pointers.ts). */
  private accessIdsOf(ids: string[]): Promise<(string | null)[]> {
    return accessIdsOf(this.connection.redis, this.connection.keys, ids);
  }

  private async loadByAccessIds(accessIds: string[]): Promise<(ServiceAccountRecord | null)[]> {
    const { redis, keys } = this.connection;
    const raws = await this.connection.guard(() =>
      mgetGroups(
        redis,
        accessIds.map((a) => [keys.account(a), keys.accountUsage(a)]),
      ),
    );
    return raws.map(([record, usage]) => (record ? withUsage(JSON.parse(record) as StoredServiceAccount, usage ?? null) : null));
  }

  async getServiceAccount(id: string): Promise<ServiceAccountRecord | null> {
    const [accessId] = await this.connection.guard(() => this.accessIdsOf([id]));
    if (!accessId) return null;
    const [account] = await this.loadByAccessIds([accessId]);
    return account ?? null;
  }

  async findServiceAccountByAccessId(accessId: string): Promise<ServiceAccountRecord | null> {
    const [account] = await this.loadByAccessIds([accessId]);
    return account ?? null;
  }

  async listServiceAccounts(page: PageRequest): Promise<Page<ServiceAccountRecord>> {
    const positions = await this.connection.guard(() => positionsAfter(this.connection.redis, this.connection.keys.accountIndex, page));
    const accessIds = await this.connection.guard(() => this.accessIdsOf(positions.slice(0, page.limit).map(({ id }) => id)));
    const accounts = await this.loadByAccessIds(accessIds.filter((a): a is string => a !== null));
    return pageOf(positions, accounts, page.limit);
  }

  async deleteServiceAccount(id: string): Promise<boolean> {
    const [accessId] = await this.connection.guard(() => this.accessIdsOf([id]));
    if (!accessId) {
      // Gone: perhaps by an earlier attempt answered change_not_confirmed, which deleted the id's
      // key with the record (one slot): answered once the replicas hold that too.
      await this.connection.guard(() => this.connection.replicaAck.confirm(this.connection.keys.accountPointer(id)));
      return false;
    }
    return this.removeServiceAccount(id, accessId);
  }

  async deleteServiceAccountByAccessId(accessId: string): Promise<string | null> {
    // The record names its id: no index is needed.
    const raw = await this.connection.guard(() => this.connection.redis.get(this.connection.keys.account(accessId)));
    if (!raw) {
      // Gone, perhaps by an unconfirmed earlier attempt: answered once the replicas hold that too.
      await this.connection.guard(() => this.connection.replicaAck.confirm(this.connection.keys.account(accessId)));
      return null;
    }
    const { id } = JSON.parse(raw) as StoredServiceAccount;
    return (await this.removeServiceAccount(id, accessId)) ? id : null;
  }

  private async removeServiceAccount(id: string, accessId: string): Promise<boolean> {
    // The record first, with its usage (and its pointer when they share a slot): from this moment
    // every request with the Access ID gets 401 on every instance. Its nonces expire on their own.
    // Then the pointer (when apart) and the indexes.
    const { redis, keys } = this.connection;
    const pointer = keys.accountPointer(id);
    const together = sharesSlot(id, accessId);
    const recordKeys = [keys.account(accessId), keys.accountUsage(accessId), ...(together ? [pointer] : [])];
    const deleted = await this.connection.confirmed<number>(recordKeys[0]!, (pipeline) => pipeline.eval(DELETE_RECORD, recordKeys.length, ...recordKeys));
    if (!together) await this.connection.guard(() => redis.eval(DELETE_IF_EQUALS, 1, pointer, accessId));
    await this.connection.guard(() => redis.hdel(keys.accessIdsById, id));
    await this.connection.guard(() => redis.zrem(keys.accountIndex, id));
    return deleted === 1;
  }

  async serviceAccountForRequest(accessId: string, nonce: string): Promise<SignedRequestState> {
    return serviceAccountForRequest(this.connection, accessId, nonce);
  }

  async consumeNonce(accessId: string, nonce: string, nonceTtlSeconds: number, version?: string, createdSeconds?: number): Promise<NonceConsumption> {
    return consumeNonce(this.connection, accessId, nonce, nonceTtlSeconds, version, createdSeconds);
  }

  async updateServiceAccount(id: string, change: ServiceAccountChange): Promise<ServiceAccountRecord | null> {
    return (await changeAccount(this.connection, id, (stored) => ({ outcome: 'updated', account: { ...stored, ...change } }))).account;
  }

  async addServiceAccountKey(id: string, key: ServiceAccountKey): Promise<KeyChange<KeyAddOutcome>> {
    return changeAccount(this.connection, id, (stored) => addingKey(stored, key));
  }

  async removeServiceAccountKey(id: string, fingerprint: string): Promise<KeyChange<KeyRemoveOutcome>> {
    return changeAccount(this.connection, id, (stored) => removingKey(stored, fingerprint));
  }

  async recordServiceAccountUse(uses: ServiceAccountUse[]): Promise<void> {
    if (uses.length === 0) return;
    const { redis, keys } = this.connection;
    // One script per account (each in its own slot), sent together.
    await this.connection.guard(() =>
      Promise.all(uses.map((use) => redis.recordUse(keys.account(use.accessId), keys.accountUsage(use.accessId), use.at, use.ip, use.fingerprint))),
    );
  }
}
