// Credential store on Redis (one server, a master behind Sentinel, or a Cluster), shared by every
// gateway instance. Commands fail fast when Redis is unreachable (redis-connection.ts) so that the
// gateway fails closed instead of waiting or guessing. The key layout (redis-keys.ts) keeps every
// multi-key step on one credential in one Cluster slot; indexes are written in their own commands,
// before the record on create (listed-create.ts) and after it is gone on delete, and readers skip an
// index entry whose record is gone. A service account is found by its id through a pointer key in
// its record's slot (account-ids.ts), never through an index.
import { createHash } from 'node:crypto';
import { Cluster, type ChainableCommander, type Result } from 'ioredis';
import type { NonceFailoverGuard } from '../config/settings.js';
import { decodeCursor, pageOf } from './page-cursor.js';
import { RedisChannelWatcher } from './redis-channel-watcher.js';
import { connectWithinLimit, createRedisClient, subscriberFactory, type RedisClient, type RedisClientSettings } from './redis-connection.js';
import { RedisKeys } from './redis-keys.js';
import { migrateLayout, OldLayoutOnClusterError, type MigrationResult } from './redis-layout-migration.js';
import { readPersistence } from './redis-persistence.js';
import { rateLimitKey, takeRateLimit } from './redis-rate-limit.js';
import { COMPARE_AND_SET, CONSUME_NONCE, CONSUME_NONCE_NAMING_MASTER, RECORD_USE, RELEASE_ATTEMPT, REPLACE_IF_UNCHANGED, RESERVE_ATTEMPT } from './redis-scripts.js';
import { rolledClient } from './client-secret-roll.js';
import { frozenAccount } from './frozen-records.js';
import { addingKey, removingKey } from './service-account-keys.js';
import { ChangeNotConfirmedError, ReplicaAck, type ReplicaAckSettings } from './replica-ack.js';
import { ownConnections, sharedConnection, type ConfirmingConnections } from './confirming-connections.js';
import { FailoverFence, KEPT_FENCES, masterIdentityOf, RECORD_FENCE, SignaturePredatesFailoverError } from './failover-fence.js';
import { sharesSlot } from './account-ids.js';
import { accessIdsOf } from './account-pointers.js';
import { repairIndexes } from './index-repair.js';
import type { StoreNodes } from './node-breakers.js';
import { routeCommands } from './redis-routing.js';
import { NodeUnavailableError } from './node-unavailable-error.js';
import { createListed, DELETE_IF_EQUALS, DELETE_RECORD, type Claim } from './listed-create.js';
import {
  StoreUnavailableError,
  type AttemptLimit,
  type AttemptReservation,
  type BearerState,
  type ClientRecord,
  type CredentialStore,
  type NonceConsumption,
  type Page,
  type PageRequest,
  type ServiceAccountRecord,
  type ServiceAccountUse,
  type SignedRequestState,
  type PersistenceReport,
  type RepairOptions,
  type RepairReport,
  type KeyAddOutcome,
  type KeyChange,
  type KeyRemoveOutcome,
  type ServiceAccountKey,
} from './types.js';
import type { RateLimitDecision, RateQuota } from './gcra.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    consumeNonce(accountKey: string, nonceKey: string, ttlSeconds: number, version: string): Result<number, Context>;
    /** As consumeNonce, with the master_replid and master_replid2 of the master that ran it. */
    consumeNonceNamingMaster(accountKey: string, nonceKey: string, ttlSeconds: number, version: string): Result<[number, string, string], Context>;
    recordUse(accountKey: string, usageKey: string, usage: string): Result<number, Context>;
    /** numberOfKeys, the failure counters, then the window and each counter's max. */
    reserveFailureAttempt(...keysAndArgs: (string | number)[]): Result<[number, number], Context>;
    releaseFailureAttempt(...keys: (string | number)[]): Result<number, Context>;
  }
}

type StoredServiceAccount = Omit<ServiceAccountRecord, 'lastUsedAt' | 'lastUsedIp'>;

/** Optimistic attempts of a read-modify-write on one record before giving up (only concurrent writers retry). */
const MAX_REPLACE_ATTEMPTS = 20;

const LAYOUT_UNCHECKED = new Error('the key layout of the store is not checked yet');

export interface RedisStoreOptions {
  commandTimeoutMs?: number | undefined;
  /** Replicas a security-relevant change must reach before it is answered (replica-ack.ts); default none. */
  replicaAck?: ReplicaAckSettings | undefined;
  /** How a used nonce survives a failover (failover-fence.ts, or WAIT per request); default off. */
  nonceFailover?: NonceFailoverGuard | undefined;
}

/** Errors that are answers, not outages: guard() passes them on as they are (and the breaker does not count them). */
const ANSWERS = [ChangeNotConfirmedError, SignaturePredatesFailoverError];

export class RedisCredentialStore implements CredentialStore {
  readonly kind = 'redis' as const;
  private readonly redis: RedisClient;
  /** On a Cluster, a breaker per master (node-breakers.ts): one lost master fails only its own keys. */
  readonly nodes: StoreNodes | undefined;
  private readonly closeNodes: () => void;
  private readonly pingAnyMaster: () => Promise<void>;
  private readonly keys: RedisKeys;
  /** Change notifications on their own connection, opened by the first watchMeta; its subscriptions are restored by the watcher itself. */
  private readonly watcher: RedisChannelWatcher;
  /** Until the layout is checked (and migrated), operations fail as unavailable rather than read an old layout. */
  private layoutCheck: Promise<void> | undefined;
  private layoutReady = false;
  /** An old layout on a Cluster: the store stays unavailable, naming it, until an operator acts. */
  private layoutError: OldLayoutOnClusterError | undefined;
  /** Old-layout revocation marks are honoured until then (epoch ms); see redis-layout-migration.ts. */
  private legacyRevocationsUntil = 0;
  /** What the layout check moved, once it ran. */
  migration: MigrationResult | undefined;
  /** Set by close(): a repair in progress stops at its next batch. */
  private closed = false;
  /** Confirms changes on replicas (a no-op with 0 replicas required), on connections of its own then. */
  private readonly replicaAck: ReplicaAck;
  private readonly confirming: ConfirmingConnections;
  private readonly nonceFailover: NonceFailoverGuard;
  private readonly fence: FailoverFence;

  /** @param connection a REDIS_URL, or the settings naming a Cluster or Sentinel topology. */
  constructor(connection: string | RedisClientSettings, private readonly prefix: string, options: RedisStoreOptions = {}) {
    const settings: RedisClientSettings = typeof connection === 'string' ? { redisUrl: connection } : connection;
    const clientSettings = { ...settings, redisCommandTimeoutMs: options.commandTimeoutMs ?? settings.redisCommandTimeoutMs };
    // Every keyed command within a deadline, and on a Cluster through its master's breaker (redis-routing.ts).
    const routed = routeCommands(createRedisClient(clientSettings), clientSettings);
    this.redis = routed.client;
    this.nodes = routed.nodes;
    this.closeNodes = () => routed.nodes?.close();
    this.pingAnyMaster = () => routed.pingAnyMaster();
    this.keys = new RedisKeys(prefix);
    const replicaAck = options.replicaAck ?? { replicas: 0, timeoutMs: 0 };
    this.confirming = replicaAck.replicas > 0 ? ownConnections(this.redis, (c) => c.defineCommand('consumeNonce', { numberOfKeys: 2, lua: CONSUME_NONCE })) : sharedConnection(this.redis);
    this.replicaAck = new ReplicaAck(this.confirming, replicaAck, clientSettings.redisCommandTimeoutMs ?? 500);
    this.nonceFailover = options.nonceFailover ?? 'off';
    if (this.nonceFailover === 'wait' && this.replicaAck.settings.replicas === 0) throw new Error('nonceFailover wait needs at least one replica to wait for');
    this.fence = new FailoverFence((replid, nowMs) => this.guard(async () => Number(await this.redis.eval(RECORD_FENCE, 1, this.keys.failoverFences, replid, nowMs, KEPT_FENCES))));
    this.watcher = new RedisChannelWatcher(subscriberFactory(this.redis, clientSettings));
    // Connection errors surface as failed commands (503); the event itself needs no handler noise.
    this.redis.on('error', () => {});
    this.redis.on('ready', () => {
      // Watchers re-read through this connection: when it comes back, the re-reads they may have missed happen now.
      this.watcher.notifyAll();
      // A store that started while Redis was down checks the layout once it first connects.
      this.checkLayout().catch(() => {});
    });
    // Hot-path scripts run by SHA (EVALSHA), not by sending their text on every request.
    this.redis.defineCommand('consumeNonce', { numberOfKeys: 2, lua: CONSUME_NONCE });
    this.redis.defineCommand('consumeNonceNamingMaster', { numberOfKeys: 2, lua: CONSUME_NONCE_NAMING_MASTER });
    this.redis.defineCommand('recordUse', { numberOfKeys: 2, lua: RECORD_USE });
    // Failure counters: a variable number of keys, so the key count is the first argument.
    this.redis.defineCommand('reserveFailureAttempt', { lua: RESERVE_ATTEMPT });
    this.redis.defineCommand('releaseFailureAttempt', { lua: RELEASE_ATTEMPT });
  }

  /** Connects and brings the keys to the current layout; an old layout on a Cluster is refused (OldLayoutOnClusterError). */
  async connect(): Promise<void> {
    try {
      await connectWithinLimit(this.redis);
      await this.checkLayout();
    } catch (error) {
      if (error instanceof OldLayoutOnClusterError) throw error;
      throw new StoreUnavailableError(error);
    }
  }

  private checkLayout(): Promise<void> {
    this.layoutCheck ??= migrateLayout(this.redis, this.keys).then(
      (result) => {
        this.migration = result;
        this.legacyRevocationsUntil = result.legacyRevocationsUntil;
        this.layoutReady = true;
      },
      (error: unknown) => {
        if (error instanceof OldLayoutOnClusterError) this.layoutError = error;
        else this.layoutCheck = undefined;
        throw error;
      },
    );
    return this.layoutCheck;
  }

  private async guard<T>(operation: () => Promise<T>): Promise<T> {
    if (!this.layoutReady) throw new StoreUnavailableError(this.layoutError ?? LAYOUT_UNCHECKED);
    try {
      return await operation();
    } catch (error) {
      if (ANSWERS.some((answer) => error instanceof answer)) throw error;
      // One lost Cluster master: its own error, which the store-wide breaker does not count.
      if (error instanceof NodeUnavailableError) throw error;
      throw new StoreUnavailableError(error);
    }
  }

  /** A write answered only once the replicas the settings require hold it (replica-ack.ts): the commands `write` adds, in the slot of slotKey. */
  private confirmed<T>(slotKey: string, write: (pipeline: ChainableCommander) => ChainableCommander): Promise<T> {
    return this.guard(() => this.replicaAck.write<T>(slotKey, write));
  }

  /**
   * Reads groups of keys, each group within one slot: one MGET on a single server, one per group (at
   * once) on a Cluster, where the group numbered mayFail (if any) is null when its read fails.
   */
  private async mgetGroups(groups: string[][]): Promise<(string | null)[][]>;
  private async mgetGroups(groups: string[][], mayFail: number): Promise<((string | null)[] | null)[]>;
  private async mgetGroups(groups: string[][], mayFail?: number): Promise<((string | null)[] | null)[]> {
    if (groups.length === 0) return [];
    if (this.redis instanceof Cluster) {
      const cluster = this.redis;
      return Promise.all(groups.map((group, i) => (i === mayFail ? cluster.mget(group).catch(() => null) : cluster.mget(group))));
    }
    const flat = await this.redis.mget(groups.flat());
    let next = 0;
    return groups.map((group) => group.map(() => flat[next++] ?? null));
  }

  /** Up to limit + 1 ids of a sorted-set index after the page's cursor (the extra one says more follow). */
  private idsAfter(index: string, page: PageRequest): Promise<string[]> {
    const after = decodeCursor(page.cursor);
    return this.redis.zrangebylex(index, after === undefined ? '-' : `(${after}`, '+', 'LIMIT', 0, page.limit + 1);
  }

  /** On a Cluster: some master answers (a lost one fails only its own keys; see nodes). */
  async ping(): Promise<void> {
    await this.guard(() => this.pingAnyMaster());
  }

  async close(): Promise<void> {
    this.closed = true;
    this.closeNodes();
    this.watcher.close();
    this.redis.disconnect();
    this.confirming.close();
  }

  /** Reconciles the list indexes and id pointers with the records (index-repair.ts); stops when the store closes. */
  async repairIndexes(options?: RepairOptions): Promise<RepairReport> {
    return this.guard(() => repairIndexes(this.redis, this.keys, options, () => this.closed));
  }

  async createClient(client: ClientRecord): Promise<boolean> {
    const { clientId } = client;
    return this.guard(() => createListed(this.redis, this.keys.clientIndex, clientId, [[[this.keys.client(clientId), this.keys.clientVoid(clientId), JSON.stringify(client)]]]));
  }

  async getClient(clientId: string): Promise<ClientRecord | null> {
    const raw = await this.guard(() => this.redis.get(this.keys.client(clientId)));
    return raw ? (JSON.parse(raw) as ClientRecord) : null;
  }

  async listClients(page: PageRequest): Promise<Page<ClientRecord>> {
    const [ids, raws] = await this.guard(async () => {
      const ids = await this.idsAfter(this.keys.clientIndex, page);
      return [ids, await this.mgetGroups(ids.slice(0, page.limit).map((id) => [this.keys.client(id)]))] as const;
    });
    return pageOf(ids, raws.map(([raw]) => (raw ? (JSON.parse(raw) as ClientRecord) : null)), page.limit);
  }

  async deleteClient(clientId: string): Promise<boolean> {
    // The record first: its tokens fail from this moment. Its revocation marks expire on their own.
    // Answered once the replicas have it too (also when it was already gone: an earlier attempt's).
    const key = this.keys.client(clientId);
    const deleted = await this.confirmed<number>(key, (pipeline) => pipeline.del(key));
    await this.guard(() => this.redis.zrem(this.keys.clientIndex, clientId));
    return deleted === 1;
  }

  async rollClientSecret(clientId: string, secretHash: string, graceSeconds: number): Promise<ClientRecord | null> {
    // Read, change, and write back only if the record is still what was read (REPLACE_IF_UNCHANGED,
    // on the record's key, so one slot): a concurrent change makes this one read again.
    const key = this.keys.client(clientId);
    for (let attempt = 0; attempt < MAX_REPLACE_ATTEMPTS; attempt++) {
      const raw = await this.guard(() => this.redis.get(key));
      if (raw === null) return null;
      const rolled = rolledClient(JSON.parse(raw) as ClientRecord, secretHash, graceSeconds, Date.now());
      const replaced = await this.confirmed<number>(key, (pipeline) => pipeline.eval(REPLACE_IF_UNCHANGED, 1, key, raw, JSON.stringify(rolled)));
      if (replaced === 1) return rolled;
      if (replaced === -1) return null;
    }
    throw new StoreUnavailableError(new Error(`the client record ${clientId} kept changing during a secret roll`));
  }

  async revokeToken(clientId: string, jti: string, expiresAtSeconds: number): Promise<void> {
    // A token past its exp fails verification anyway; keep the mark a little longer for clock skew.
    const until = Math.max(expiresAtSeconds + 60, Math.floor(Date.now() / 1000) + 60);
    const key = this.keys.revoked(clientId, jti);
    await this.confirmed(key, (pipeline) => pipeline.set(key, '1', 'EXAT', until));
  }

  async bearerState(clientId: string, jti: string, kid: string): Promise<BearerState> {
    // The client's keys share a slot; the retired-key mark (and an old revocation mark, only while
    // they may exist) are in others: one MGET on a single server, one per slot at once on a Cluster.
    // Every token names one of a few kids, so on a Cluster their marks sit on one master: losing it
    // must not stop every Bearer request. There an unreadable mark is null (AccessTokens.isRetired).
    const groups = [[this.keys.client(clientId), this.keys.revoked(clientId, jti)], [this.keys.retiredSigningKey(kid)]];
    if (Date.now() < this.legacyRevocationsUntil) groups.push([this.keys.legacyRevoked(jti)]);
    const [own, mark, legacy] = await this.guard(() => this.mgetGroups(groups, 1));
    const [client, revoked] = own!;
    return {
      client: client ? (JSON.parse(client) as ClientRecord) : null,
      revoked: (revoked ?? legacy?.[0] ?? null) !== null,
      signingKeyRetired: mark ? (mark[0] ?? null) !== null : null,
    };
  }

  async retireSigningKey(kid: string, untilSeconds: number): Promise<void> {
    const key = this.keys.retiredSigningKey(kid);
    await this.confirmed(key, (pipeline) => pipeline.set(key, '1', 'EXAT', untilSeconds));
  }

  async getMeta(name: string): Promise<string | null> {
    return this.guard(() => this.redis.get(this.keys.meta(name)));
  }

  async compareAndSetMeta(name: string, expected: string | null, value: string): Promise<boolean> {
    const set = await this.guard(() =>
      this.redis.eval(COMPARE_AND_SET, 1, this.keys.meta(name), expected === null ? '1' : '0', expected ?? '', value, this.keys.metaChannel(name)),
    );
    return set === 1;
  }

  watchMeta(name: string, onChange: () => void): () => void {
    return this.watcher.watch(this.keys.metaChannel(name), onChange);
  }

  async createServiceAccount(account: ServiceAccountRecord): Promise<boolean> {
    const { lastUsedAt: _at, lastUsedIp: _ip, ...stored } = account;
    const { id, accessId } = account;
    // The pointer claims the id, the record the Access ID: in one step when they share a slot (ids
    // from account-ids.ts), else the pointer first.
    const pointer: Claim = [this.keys.accountPointer(id), this.keys.accountPointerVoid(id), accessId];
    const record: Claim = [this.keys.account(accessId), this.keys.accountVoid(accessId), JSON.stringify(stored)];
    const steps = sharesSlot(id, accessId) ? [[pointer, record]] : [[pointer], [record]];
    return this.guard(() => createListed(this.redis, this.keys.accountIndex, id, steps));
  }

  /** The Access IDs behind ids (null: none), found without the list index (account-pointers.ts). */
  private accessIdsOf(ids: string[]): Promise<(string | null)[]> {
    return accessIdsOf(this.redis, this.keys, ids);
  }

  private async loadByAccessIds(accessIds: string[]): Promise<(ServiceAccountRecord | null)[]> {
    const raws = await this.guard(() => this.mgetGroups(accessIds.map((a) => [this.keys.account(a), this.keys.accountUsage(a)])));
    return raws.map(([record, usage]) => (record ? withUsage(JSON.parse(record) as StoredServiceAccount, usage ?? null) : null));
  }

  async getServiceAccount(id: string): Promise<ServiceAccountRecord | null> {
    const [accessId] = await this.guard(() => this.accessIdsOf([id]));
    if (!accessId) return null;
    const [account] = await this.loadByAccessIds([accessId]);
    return account ?? null;
  }

  async findServiceAccountByAccessId(accessId: string): Promise<ServiceAccountRecord | null> {
    const [account] = await this.loadByAccessIds([accessId]);
    return account ?? null;
  }

  async listServiceAccounts(page: PageRequest): Promise<Page<ServiceAccountRecord>> {
    const ids = await this.guard(() => this.idsAfter(this.keys.accountIndex, page));
    const accessIds = await this.guard(() => this.accessIdsOf(ids.slice(0, page.limit)));
    const accounts = await this.loadByAccessIds(accessIds.filter((a): a is string => a !== null));
    return pageOf(ids, accounts, page.limit);
  }

  async deleteServiceAccount(id: string): Promise<boolean> {
    const [accessId] = await this.guard(() => this.accessIdsOf([id]));
    if (!accessId) {
      // Gone: perhaps by an earlier attempt answered change_not_confirmed, which deleted the id's
      // key with the record (one slot): answered once the replicas hold that too.
      await this.guard(() => this.replicaAck.confirm(this.keys.accountPointer(id)));
      return false;
    }
    return this.removeServiceAccount(id, accessId);
  }

  async deleteServiceAccountByAccessId(accessId: string): Promise<string | null> {
    // The record names its id: no index is needed.
    const raw = await this.guard(() => this.redis.get(this.keys.account(accessId)));
    if (!raw) {
      // Gone, perhaps by an unconfirmed earlier attempt: answered once the replicas hold that too.
      await this.guard(() => this.replicaAck.confirm(this.keys.account(accessId)));
      return null;
    }
    const { id } = JSON.parse(raw) as StoredServiceAccount;
    return (await this.removeServiceAccount(id, accessId)) ? id : null;
  }

  private async removeServiceAccount(id: string, accessId: string): Promise<boolean> {
    // The record first, with its usage (and its pointer when they share a slot): from this moment
    // every request with the Access ID gets 401 on every instance. Its nonces expire on their own.
    // Then the pointer (when apart) and the indexes.
    const pointer = this.keys.accountPointer(id);
    const together = sharesSlot(id, accessId);
    const recordKeys = [this.keys.account(accessId), this.keys.accountUsage(accessId), ...(together ? [pointer] : [])];
    const deleted = await this.confirmed<number>(recordKeys[0]!, (pipeline) => pipeline.eval(DELETE_RECORD, recordKeys.length, ...recordKeys));
    if (!together) await this.guard(() => this.redis.eval(DELETE_IF_EQUALS, 1, pointer, accessId));
    await this.guard(() => this.redis.hdel(this.keys.accessIdsById, id));
    await this.guard(() => this.redis.zrem(this.keys.accountIndex, id));
    return deleted === 1;
  }

  async serviceAccountForRequest(accessId: string, nonce: string): Promise<SignedRequestState> {
    const [account, used] = await this.guard(() => this.redis.mget(this.keys.account(accessId), this.keys.nonce(accessId, nonce)));
    if (!account) return { account: null, nonceUsed: false };
    // Frozen: the signature stage keeps it between requests (account-cache.ts).
    return { account: frozenAccount(withUsage(JSON.parse(account) as StoredServiceAccount, null)), nonceUsed: used !== null && used !== undefined, version: recordVersion(account) };
  }

  async consumeNonce(accessId: string, nonce: string, nonceTtlSeconds: number, version?: string, createdSeconds?: number): Promise<NonceConsumption> {
    const keys = [this.keys.account(accessId), this.keys.nonce(accessId, nonce)] as const;
    if (this.nonceFailover === 'wait') {
      // Only a fresh nonce waits for the replicas; a refused one is refused whatever they hold.
      const result = await this.guard(() =>
        this.replicaAck.write<number>(keys[0], (pipeline) => pipeline.consumeNonce(...keys, nonceTtlSeconds, version ?? ''), { subject: 'nonce', barrier: false, needed: (answer) => answer === 1 }),
      );
      return CONSUMPTIONS[result] ?? 'account_gone';
    }
    if (this.nonceFailover === 'off') {
      const result = await this.guard(() => this.redis.consumeNonce(...keys, nonceTtlSeconds, version ?? ''));
      return CONSUMPTIONS[result] ?? 'account_gone';
    }
    const [result, replid, replid2] = await this.guard(() => this.redis.consumeNonceNamingMaster(...keys, nonceTtlSeconds, version ?? ''));
    const consumption = CONSUMPTIONS[result] ?? 'account_gone';
    // A nonce fresh to a master that took over may have been used on the one before it: failover-fence.ts.
    if (consumption === 'fresh' && createdSeconds !== undefined) await this.fence.check(await this.guard(async () => masterIdentityOf(replid, replid2)), createdSeconds);
    return consumption;
  }

  async addServiceAccountKey(id: string, key: ServiceAccountKey): Promise<KeyChange<KeyAddOutcome>> {
    return this.changeAccount(id, (stored) => addingKey(stored, key));
  }

  async removeServiceAccountKey(id: string, fingerprint: string): Promise<KeyChange<KeyRemoveOutcome>> {
    return this.changeAccount(id, (stored) => removingKey(stored, fingerprint));
  }

  /**
   * Changes one account record atomically: read it, compute the change, and write it only while the
   * record is still what was read (REPLACE_IF_UNCHANGED, in the record's slot); retried when another
   * writer came in between. The Access ID behind an id never changes, so the id lookup may come first.
   */
  private async changeAccount<O extends string>(id: string, change: (stored: StoredServiceAccount) => { outcome: O; account: StoredServiceAccount }): Promise<KeyChange<O | 'account_not_found'>> {
    const [accessId] = await this.guard(() => this.accessIdsOf([id]));
    if (!accessId) return { outcome: 'account_not_found', account: null };
    const key = this.keys.account(accessId);
    for (let attempt = 0; attempt < MAX_REPLACE_ATTEMPTS; attempt++) {
      const [raw, usage] = await this.guard(() => this.redis.mget(key, this.keys.accountUsage(accessId)));
      if (!raw) return { outcome: 'account_not_found', account: null };
      const { outcome, account } = change(JSON.parse(raw) as StoredServiceAccount);
      if (outcome !== 'added' && outcome !== 'removed') {
        // Nothing to write (the key is already gone, already held...): answered once the replicas
        // hold this state too, so a repeat of an unconfirmed change confirms it.
        await this.guard(() => this.replicaAck.confirm(key));
        return { outcome, account: withUsage(account, usage ?? null) };
      }
      const set = await this.confirmed<number>(key, (pipeline) => pipeline.eval(REPLACE_IF_UNCHANGED, 1, key, raw, JSON.stringify(account)));
      // 0: changed (or deleted) since it was read; the next read says which.
      if (set === 1) return { outcome, account: withUsage(account, usage ?? null) };
    }
    throw new StoreUnavailableError(new Error(`service account ${id} kept changing; try again`));
  }

  async recordServiceAccountUse(uses: ServiceAccountUse[]): Promise<void> {
    if (uses.length === 0) return;
    // One script per account (each in its own slot), sent together.
    await this.guard(() =>
      Promise.all(uses.map((use) => this.redis.recordUse(this.keys.account(use.accessId), this.keys.accountUsage(use.accessId), JSON.stringify({ at: use.at, ip: use.ip })))),
    );
  }

  async reserveAttempt(limits: AttemptLimit[], windowSeconds: number): Promise<AttemptReservation> {
    if (limits.length === 0) return { allowed: true, retryAfterSeconds: 0 };
    const keys = limits.map((l) => this.keys.failures(l.key));
    const [allowed, waitMs] = await this.guard(() => this.redis.reserveFailureAttempt(keys.length, ...keys, windowSeconds, ...limits.map((l) => l.max)));
    return allowed === 1 ? { allowed: true, retryAfterSeconds: 0 } : { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  }

  async checkAttempt(limits: AttemptLimit[]): Promise<AttemptReservation> {
    if (limits.length === 0) return { allowed: true, retryAfterSeconds: 0 };
    const keys = limits.map((l) => this.keys.failures(l.key));
    const counts = await this.guard(() => this.redis.mget(...keys));
    const blocking = keys.filter((_key, i) => Number(counts[i] ?? 0) >= limits[i]!.max);
    if (blocking.length === 0) return { allowed: true, retryAfterSeconds: 0 };
    const waits = await this.guard(() => Promise.all(blocking.map((key) => this.redis.pttl(key))));
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(Math.max(...waits) / 1000)) };
  }

  async releaseAttempt(keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.guard(() => this.redis.releaseFailureAttempt(keys.length, ...keys.map((k) => this.keys.failures(k))));
  }

  async takeRateLimit(credentialId: string, routeId: string, rule: RateQuota): Promise<RateLimitDecision> {
    return this.guard(() => takeRateLimit(this.redis, rateLimitKey(this.prefix, credentialId, routeId), rule));
  }

  async putSession(id: string, data: string, ttlSeconds: number): Promise<void> {
    await this.guard(() => this.redis.set(this.keys.session(id), data, 'EX', ttlSeconds));
  }

  async getSession(id: string): Promise<string | null> {
    return this.guard(() => this.redis.get(this.keys.session(id)));
  }

  async deleteSession(id: string): Promise<void> {
    await this.guard(() => this.redis.del(this.keys.session(id)));
  }

  /** Not guard()ed: a refused CONFIG is an answer (readPersistence falls back), not an outage. */
  async persistence(): Promise<PersistenceReport> {
    return readPersistence(this.redis);
  }
}

const CONSUMPTIONS: Record<number, NonceConsumption> = { 1: 'fresh', 0: 'used', [-1]: 'account_gone', [-2]: 'account_changed' };

/** The version CONSUME_NONCE compares: the SHA-1 of the record as stored (usage is kept apart, so using an account changes nothing). */
function recordVersion(raw: string): string {
  return createHash('sha1').update(raw).digest('hex');
}

function withUsage(stored: StoredServiceAccount, usage: string | null): ServiceAccountRecord {
  const used = usage ? (JSON.parse(usage) as { at: string; ip: string }) : null;
  return { ...stored, lastUsedAt: used?.at ?? null, lastUsedIp: used?.ip ?? null };
}
