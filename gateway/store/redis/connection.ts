// The connection every Redis adapter of the store shares, and the rules they all follow. Commands
// fail fast when Redis is unreachable (redis-connection.ts) so that the gateway fails closed instead
// of waiting or guessing; until the key layout is checked every operation fails as unavailable
// (layout-gate.ts); security-relevant changes are answered only once the replicas the settings
// require hold them (replica-ack.ts).
import type { ChainableCommander } from 'ioredis';
import type { NonceFailoverGuard } from '../../config/settings.js';
import { ownConnections, sharedConnection, type ConfirmingConnections } from '../confirming-connections.js';
import { FailoverFence, KEPT_FENCES, RECORD_FENCE, SignaturePredatesFailoverError } from '../failover-fence.js';
import { repairIndexes } from '../index-repair.js';
import type { StoreNodes } from '../node-breakers.js';
import { NodeUnavailableError } from '../node-unavailable-error.js';
import { RedisChannelWatcher } from '../redis-channel-watcher.js';
import { connectWithinLimit, createRedisClient, subscriberFactory, type RedisClient, type RedisClientSettings } from '../redis-connection.js';
import { RedisKeys } from '../redis-keys.js';
import { OldLayoutOnClusterError, type MigrationResult } from '../redis-layout-migration.js';
import { readPersistence } from '../redis-persistence.js';
import { routeCommands } from '../redis-routing.js';
import { CONSUME_NONCE } from '../redis-scripts.js';
import { ChangeNotConfirmedError, ReplicaAck, type ReplicaAckSettings } from '../replica-ack.js';
import { StoreUnavailableError } from '../store-unavailable-error.js';
import type { CredentialCounts, PersistenceReport, RepairOptions, RepairReport } from '../types.js';
import { defineStoreCommands } from './commands.js';
import { LayoutGate } from './layout-gate.js';
import { TrackedCache } from './tracked-cache.js';

/** Errors that are answers, not outages: guard() passes them on as they are (and the breaker does not count them). */
const ANSWERS = [ChangeNotConfirmedError, SignaturePredatesFailoverError];

export interface RedisStoreOptions {
  commandTimeoutMs?: number | undefined;
  /** Replicas a security-relevant change must reach before it is answered (replica-ack.ts); default none. */
  replicaAck?: ReplicaAckSettings | undefined;
  /** How a used nonce survives a failover (failover-fence.ts, or WAIT per request); default off. */
  nonceFailover?: NonceFailoverGuard | undefined;
  /** The Bearer path's cache with Redis's invalidations (tracked-cache.ts): its lease in ms; 0 or absent: off. */
  cacheLeaseMs?: number | undefined;
}

export class RedisStoreConnection {
  readonly redis: RedisClient;
  /** On a Cluster, a breaker per master (node-breakers.ts): one lost master fails only its own keys. */
  readonly nodes: StoreNodes | undefined;
  private readonly closeNodes: () => void;
  private readonly pingAnyMaster: () => Promise<void>;
  readonly keys: RedisKeys;
  /** Change notifications on their own connection, opened by the first watch; its subscriptions are restored by the watcher itself. */
  readonly watcher: RedisChannelWatcher;
  private readonly layout: LayoutGate;
  /** Set by close(): a repair in progress stops at its next batch. */
  private closed = false;
  /** The connection's last error while it is not ready (connect ECONNREFUSED 127.0.0.1:6379). */
  private connectionError: Error | undefined;
  /** Confirms changes on replicas (a no-op with 0 replicas required), on connections of its own then. */
  readonly replicaAck: ReplicaAck;
  private readonly confirming: ConfirmingConnections;
  readonly nonceFailover: NonceFailoverGuard;
  readonly fence: FailoverFence;
  /** What the Bearer path and the token endpoint read, kept while Redis reports every change to it; undefined when off. */
  readonly trackedCache: TrackedCache | undefined;

  /** @param connection a REDIS_URL, or the settings naming a Cluster or Sentinel topology. */
  constructor(
    connection: string | RedisClientSettings,
    readonly prefix: string,
    options: RedisStoreOptions = {},
  ) {
    const settings: RedisClientSettings = typeof connection === 'string' ? { redisUrl: connection } : connection;
    const clientSettings = { ...settings, redisCommandTimeoutMs: options.commandTimeoutMs ?? settings.redisCommandTimeoutMs };
    // Every keyed command within a deadline, and on a Cluster through its master's breaker (redis-routing.ts).
    const routed = routeCommands(createRedisClient(clientSettings), clientSettings);
    this.redis = routed.client;
    this.nodes = routed.nodes;
    this.closeNodes = () => routed.nodes?.close();
    this.pingAnyMaster = () => routed.pingAnyMaster();
    this.keys = new RedisKeys(prefix);
    this.layout = new LayoutGate(this.redis, this.keys);
    const replicaAck = options.replicaAck ?? { replicas: 0, timeoutMs: 0 };
    this.confirming =
      replicaAck.replicas > 0
        ? ownConnections(this.redis, (c) => c.defineCommand('consumeNonce', { numberOfKeys: 2, lua: CONSUME_NONCE }))
        : sharedConnection(this.redis);
    this.replicaAck = new ReplicaAck(this.confirming, replicaAck, clientSettings.redisCommandTimeoutMs ?? 500);
    this.nonceFailover = options.nonceFailover ?? 'off';
    if (this.nonceFailover === 'wait' && this.replicaAck.settings.replicas === 0) throw new Error('nonceFailover wait needs at least one replica to wait for');
    this.fence = new FailoverFence((replid, nowMs) =>
      this.guard(async () => Number(await this.redis.eval(RECORD_FENCE, 1, this.keys.failoverFences, replid, nowMs, KEPT_FENCES))),
    );
    this.watcher = new RedisChannelWatcher(subscriberFactory(this.redis, clientSettings));
    const leaseMs = options.cacheLeaseMs ?? 0;
    this.trackedCache = leaseMs > 0 ? new TrackedCache(this.redis, this.keys.trackedPrefixes, leaseMs) : undefined;
    // Connection errors surface as failed commands (503); the last one says why (ECONNREFUSED...),
    // which a command failing on a closed connection cannot.
    this.redis.on('error', (error: Error) => (this.connectionError = error));
    this.redis.on('ready', () => {
      this.connectionError = undefined;
      // Watchers re-read through this connection: when it comes back, the re-reads they may have missed happen now.
      this.watcher.notifyAll();
      // A store that started while Redis was down checks the layout once it first connects.
      this.layout.check().catch(() => {});
    });
    defineStoreCommands(this.redis);
  }

  /** What the layout check moved, once it ran. */
  get migration(): MigrationResult | undefined {
    return this.layout.migration;
  }

  /** Until when (epoch ms) revocation marks of the old layout may still exist and are read. */
  get legacyRevocationsUntil(): number {
    return this.layout.legacyRevocationsUntil;
  }

  /** Connects and brings the keys to the current layout; an old layout on a Cluster is refused (OldLayoutOnClusterError). */
  async connect(): Promise<void> {
    try {
      await connectWithinLimit(this.redis);
      await this.layout.check();
    } catch (error) {
      if (error instanceof OldLayoutOnClusterError) throw error;
      throw new StoreUnavailableError(this.connectionError ?? error);
    }
  }

  /** Runs an operation once the layout is checked; an outage becomes StoreUnavailableError, answers pass as they are. */
  async guard<T>(operation: () => Promise<T>): Promise<T> {
    try {
      this.layout.assertReady();
    } catch (error) {
      // Not connected (yet): the connection's own error says why, not the unchecked layout.
      throw this.connectionError ? new StoreUnavailableError(this.connectionError) : error;
    }
    try {
      return await operation();
    } catch (error) {
      if (ANSWERS.some((answer) => error instanceof answer)) throw error;
      // One lost Cluster master: its own error, which the store-wide breaker does not count.
      if (error instanceof NodeUnavailableError) throw error;
      throw new StoreUnavailableError(this.connectionError ?? error);
    }
  }

  /** A write answered only once the replicas the settings require hold it (replica-ack.ts): the commands `write` adds, in the slot of slotKey. */
  confirmed<T>(slotKey: string, write: (pipeline: ChainableCommander) => ChainableCommander): Promise<T> {
    return this.guard(() => this.replicaAck.write<T>(slotKey, write));
  }

  /** On a Cluster: some master answers (a lost one fails only its own keys; see nodes). */
  /** The keys' values through the tracked cache (tracked-cache.ts readThrough), or straight from `read` when it is off. */
  readTracked(keys: readonly string[], read: () => Promise<readonly unknown[]>): Promise<readonly unknown[]> {
    return this.trackedCache ? this.trackedCache.readThrough(keys, read) : read();
  }

  async ping(): Promise<void> {
    await this.guard(() => this.pingAnyMaster());
  }

  async close(): Promise<void> {
    this.closed = true;
    this.closeNodes();
    this.watcher.close();
    this.trackedCache?.close();
    this.redis.disconnect();
    this.confirming.close();
  }

  /** Reconciles the list indexes and id pointers with the records (index-repair.ts); stops when the store closes. */
  async countCredentials(): Promise<CredentialCounts> {
    // Two keys in two slots: on a Cluster, two commands (each goes to its master).
    const [clients, serviceAccounts] = await this.guard(() => Promise.all([this.redis.zcard(this.keys.clientIndex), this.redis.zcard(this.keys.accountIndex)]));
    return { clients, serviceAccounts };
  }

  async repairIndexes(options?: RepairOptions): Promise<RepairReport> {
    return this.guard(() => repairIndexes(this.redis, this.keys, options, () => this.closed));
  }

  /** Not guard()ed: a refused CONFIG is an answer (readPersistence falls back), not an outage. */
  async persistence(): Promise<PersistenceReport> {
    return readPersistence(this.redis);
  }
}
