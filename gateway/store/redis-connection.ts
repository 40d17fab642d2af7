// Makes the ioredis client for the configured topology: one Redis (REDIS_URL), a Redis Cluster
// (REDIS_CLUSTER_NODES) or a master found through Sentinel (REDIS_SENTINELS). Every topology gets
// the same fail-fast behaviour: no offline queue, a command timeout, background reconnection, so
// that the gateway fails closed (503) instead of waiting or guessing while Redis is away.
import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { RedisConnectionSettings, RedisNode } from '../config/redis-settings.js';

export type RedisClient = Redis | Cluster;

/** What a client is made from: the settings (any subset; a bare REDIS_URL is enough). */
export type RedisClientSettings = Partial<RedisConnectionSettings> & {
  redisUrl?: string | undefined;
  redisCommandTimeoutMs?: number | undefined;
};

const CONNECT_TIMEOUT_MS = 2000;
/** Used only when the caller passes no timeout (the gateway always passes GATEWAY_REDIS_COMMAND_TIMEOUT_MS). */
export const DEFAULT_COMMAND_TIMEOUT_MS = 500;

/** Reconnects soon after a drop (a failover is a drop), then backs off to every 2 s. */
const reconnectDelay = (attempt: number) => Math.min(50 * 2 ** Math.min(attempt - 1, 6), 2000);

/**
 * A demoted master answers writes with READONLY. Reconnect at once (2: ioredis also resends the
 * command, which without an offline queue fails fast rather than waiting): the reconnection asks
 * the sentinels again and reaches the new master, so no write keeps going to the old one.
 */
export function reconnectOnReadOnly(error: Error): 2 | false {
  return error.message.startsWith('READONLY') ? 2 : false;
}

function tlsOptions(settings: RedisClientSettings): ConnectionOptions | undefined {
  const urlTls = settings.redisUrl?.startsWith('rediss:') ?? false;
  if (!settings.redisTls && !urlTls) return undefined;
  return settings.redisTlsCaFile ? { ca: readFileSync(settings.redisTlsCaFile) } : {};
}

/** Options shared by every connection to a Redis node (never logged: they hold the password). */
function nodeOptions(settings: RedisClientSettings): RedisOptions {
  const tls = tlsOptions(settings);
  return {
    lazyConnect: true,
    enableOfflineQueue: false,
    // Commands issued in one event-loop turn go out in one write: under load many requests share a
    // socket write and read instead of paying one each (the loopback write is most of their cost).
    enableAutoPipelining: true,
    maxRetriesPerRequest: 1,
    commandTimeout: settings.redisCommandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
    connectTimeout: CONNECT_TIMEOUT_MS,
    ...(settings.redisUsername !== undefined ? { username: settings.redisUsername } : {}),
    ...(settings.redisPassword !== undefined ? { password: settings.redisPassword } : {}),
    ...(tls ? { tls } : {}),
  };
}

function clusterClient(nodes: readonly RedisNode[], settings: RedisClientSettings): Cluster {
  const { lazyConnect: _lazy, enableOfflineQueue: _queue, enableAutoPipelining, ...redisOptions } = nodeOptions(settings);
  return new Cluster(
    nodes.map((n) => ({ host: n.host, port: n.port })),
    {
      lazyConnect: true,
      // Commands fail at once while the cluster is not ready (slots unknown, a node lost).
      enableOfflineQueue: false,
      enableAutoPipelining,
      clusterRetryStrategy: reconnectDelay,
      slotsRefreshTimeout: CONNECT_TIMEOUT_MS,
      retryDelayOnFailover: 100,
      retryDelayOnClusterDown: 100,
      redisOptions,
    },
  );
}

function sentinelClient(settings: RedisClientSettings): Redis {
  const options = nodeOptions(settings);
  return new Redis({
    ...options,
    sentinels: settings.redisSentinels!.map((n) => ({ host: n.host, port: n.port })),
    name: settings.redisSentinelMaster!,
    role: 'master',
    // Told of a failover by the sentinels (+switch-master), the client reconnects to the new master at once.
    failoverDetector: true,
    reconnectOnError: reconnectOnReadOnly,
    retryStrategy: reconnectDelay,
    sentinelCommandTimeout: CONNECT_TIMEOUT_MS,
    ...(settings.redisSentinelUsername !== undefined ? { sentinelUsername: settings.redisSentinelUsername } : {}),
    ...(settings.redisSentinelPassword !== undefined ? { sentinelPassword: settings.redisSentinelPassword } : {}),
    ...(options.tls ? { enableTLSForSentinelMode: true, sentinelTLS: options.tls } : {}),
  });
}

/** The client for the configured topology, not yet connected (call connect()). */
export function createRedisClient(settings: RedisClientSettings): RedisClient {
  if (settings.redisClusterNodes && settings.redisClusterNodes.length > 0) return clusterClient(settings.redisClusterNodes, settings);
  if (settings.redisSentinels && settings.redisSentinels.length > 0) return sentinelClient(settings);
  if (!settings.redisUrl) throw new Error('no Redis topology configured');
  return new Redis(settings.redisUrl, {
    ...nodeOptions(settings),
    // Keep reconnecting in the background; requests fail closed meanwhile. READONLY: the URL points
    // at a server that became a replica; reconnecting is all a plain URL can do.
    retryStrategy: reconnectDelay,
    reconnectOnError: reconnectOnReadOnly,
  });
}

/**
 * Makes the connection that change notifications are subscribed on (a subscribed connection can run
 * nothing else). On one Redis or Sentinel: a copy of the client's own connection, which reconnects
 * (to the new master after a failover). On a Cluster, where PUBLISH reaches every node: a plain
 * connection to one node the cluster knows, that ends when that node goes away, so that the
 * watcher opens the next one on another node.
 */
export function subscriberFactory(client: RedisClient, settings: RedisClientSettings): () => Redis {
  if (client instanceof Redis) return () => client.duplicate({ lazyConnect: true, autoResubscribe: false });
  const seeds = settings.redisClusterNodes ?? [];
  let turn = 0;
  return () => {
    const known = client.nodes('all').map((n) => ({ host: n.options.host, port: n.options.port }));
    const candidates = known.length > 0 ? known : seeds;
    const node = candidates[turn++ % candidates.length]!;
    return new Redis({ ...nodeOptions(settings), host: node.host, port: node.port, autoResubscribe: false, retryStrategy: () => null });
  };
}

/** How long a first connection may take: with Sentinel, ioredis keeps asking the sentinels and never fails it. */
const FIRST_CONNECT_LIMIT_MS = 3000;

/** Connects, or rejects after the limit while the client carries on trying in the background. */
export function connectWithinLimit(client: RedisClient, limitMs = FIRST_CONNECT_LIMIT_MS): Promise<void> {
  const connecting = client.connect();
  connecting.catch(() => {});
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no connection to Redis within ${limitMs} ms`)), limitMs);
  });
  return Promise.race([connecting, limit]).finally(() => clearTimeout(timer));
}

/** The connections to scan when every key must be seen: each master of a Cluster, or the one client. */
export function scanTargets(client: RedisClient): Redis[] {
  return client instanceof Cluster ? client.nodes('master') : [client];
}

/** How the store is reached, for the start log: never a password. */
export function describeRedis(settings: RedisClientSettings, redact: (url: string) => string): string {
  const list = (nodes: readonly RedisNode[]) => nodes.map((n) => `${n.host.includes(':') ? `[${n.host}]` : n.host}:${n.port}`).join(',');
  if (settings.redisClusterNodes?.length) return `redis cluster ${list(settings.redisClusterNodes)}`;
  if (settings.redisSentinels?.length) return `redis sentinel master ${settings.redisSentinelMaster} via ${list(settings.redisSentinels)}`;
  return settings.redisUrl ? redact(settings.redisUrl) : 'embedded';
}

/**
 * One PING to one server, on a connection of its own that is closed after: whether that node
 * answers now (the probe of a Cluster master's breaker, node-breakers.ts). Rejects when it does not.
 */
export async function pingNode(settings: RedisClientSettings, host: string, port: number): Promise<void> {
  const redis = new Redis({ ...nodeOptions(settings), host, port, retryStrategy: () => null, maxRetriesPerRequest: 0 });
  redis.on('error', () => {});
  try {
    await redis.connect();
    await redis.ping();
  } finally {
    redis.disconnect();
  }
}
