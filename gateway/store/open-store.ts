import { usesRedis, type RedisConnectionSettings } from '../config/redis-settings.js';
import type { Settings } from '../config/settings.js';
import { EmbeddedCredentialStore } from './embedded-store.js';
import { RedisCredentialStore } from './redis-store.js';
import type { CredentialStore } from './types.js';

/** The topology settings may be left out (a bare REDIS_URL): tests and tools pass only what they use. */
type StoreSettings = Pick<Settings, 'redisUrl' | 'redisKeyPrefix' | 'embeddedStorePath'> &
  Partial<
    Pick<
      Settings,
      'redisCommandTimeoutMs' | 'redisAckReplicas' | 'redisAckTimeoutMs' | 'redisNonceFailover' | 'redisCacheLeaseMs' | keyof RedisConnectionSettings
    >
  >;

/**
 * Opens the store the settings name: Redis (REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS),
 * else the embedded store. Rejects with OldLayoutOnClusterError when a Cluster holds old-layout keys.
 */
export async function openStore(settings: StoreSettings): Promise<CredentialStore> {
  const { store, connecting } = startStore(settings);
  try {
    await connecting;
  } catch (error) {
    // Stop the background reconnection of a store nobody will use.
    await store.close();
    throw error;
  }
  return store;
}

/**
 * Makes the store and starts connecting without waiting: the gateway starts (and stays up) while
 * Redis is down, and ioredis keeps reconnecting in the background. `connecting` settles with the
 * first attempt.
 */
export function startStore(settings: StoreSettings): { store: CredentialStore; connecting: Promise<void> } {
  const topology = { ...settings, redisClusterNodes: settings.redisClusterNodes ?? [], redisSentinels: settings.redisSentinels ?? [] };
  if (!usesRedis(topology)) return { store: new EmbeddedCredentialStore(settings.embeddedStorePath), connecting: Promise.resolve() };
  const store = new RedisCredentialStore(topology, settings.redisKeyPrefix, {
    commandTimeoutMs: settings.redisCommandTimeoutMs,
    replicaAck: settings.redisAckReplicas === undefined ? undefined : { replicas: settings.redisAckReplicas, timeoutMs: settings.redisAckTimeoutMs ?? 500 },
    nonceFailover: settings.redisNonceFailover,
    cacheLeaseMs: settings.redisCacheLeaseMs,
  });
  return { store, connecting: store.connect() };
}
