// The settings of the credential store, declared as every setting is (setting-registry.ts, which
// lists them in this place): one Redis server, a Cluster or Sentinel (the kinds and rules of the
// topology are in redis-settings.ts), how changes are confirmed on replicas, or the embedded store.
import { redisNodes } from './redis-settings.js';
import { listOrNone, optional, setting } from './setting-declaration.js';
import { choice, existingFile, flag, integer, path, text, url } from './setting-kinds.js';

/** fence: refuse signatures created before a detected failover; wait: WAIT for a replica per signed request; off. */
export const NONCE_FAILOVER_GUARDS = ['fence', 'wait', 'off'] as const;
export type NonceFailoverGuard = (typeof NONCE_FAILOVER_GUARDS)[number];

/** Cluster or Sentinel: a master whose replica may be promoted. */
const replicated = (s: { redisClusterNodes: readonly unknown[]; redisSentinels: readonly unknown[] }) => s.redisClusterNodes.length > 0 || s.redisSentinels.length > 0;

export const STORE_SETTINGS = {
  redisUrl: optional({
    section: 'Credential store: Redis (one server, a Cluster or Sentinel; at most one of them), or the embedded store',
    key: 'redis_url',
    env: 'REDIS_URL',
    kind: url(['redis:', 'rediss:']),
    example: 'redis://127.0.0.1:6379',
    description: 'Redis shared by all instances; unset (and no Cluster or Sentinel): the embedded single-process store.',
  }),
  redisClusterNodes: listOrNone({
    key: 'redis_cluster_nodes',
    env: 'REDIS_CLUSTER_NODES',
    kind: redisNodes,
    example: '10.0.0.1:7000,10.0.0.2:7000',
    description: 'Seed nodes of a Redis Cluster, instead of redis_url.',
  }),
  redisSentinels: listOrNone({
    key: 'redis_sentinels',
    env: 'REDIS_SENTINELS',
    kind: redisNodes,
    example: '10.0.0.5:26379,10.0.0.6:26379',
    description: 'Sentinels that know the Redis master, instead of redis_url.',
  }),
  redisSentinelMaster: optional({
    key: 'redis_sentinel_master',
    env: 'REDIS_SENTINEL_MASTER',
    kind: text('a name', (name) => (/^[A-Za-z0-9._-]{1,128}$/.test(name) ? undefined : 'must be a master name of letters, digits, . _ -')),
    example: 'gateway',
    description: 'The master name the sentinels monitor (required with redis_sentinels).',
  }),
  redisUsername: optional({ key: 'redis_username', env: 'REDIS_USERNAME', kind: text('a user name'), description: 'ACL user of the Redis nodes.' }),
  redisPassword: optional({
    key: 'redis_password',
    env: 'REDIS_PASSWORD',
    kind: text(),
    description: 'Password of the Redis nodes (never logged; prefer the environment).',
  }),
  redisSentinelUsername: optional({
    key: 'redis_sentinel_username',
    env: 'REDIS_SENTINEL_USERNAME',
    kind: text('a user name'),
    description: 'ACL user of the sentinels themselves.',
  }),
  redisSentinelPassword: optional({
    key: 'redis_sentinel_password',
    env: 'REDIS_SENTINEL_PASSWORD',
    kind: text(),
    description: 'Password of the sentinels themselves (never logged).',
  }),
  redisTls: setting({ key: 'redis_tls', env: 'REDIS_TLS', kind: flag, default: false, description: 'TLS to every Redis node and sentinel (a rediss:// URL implies it).' }),
  redisTlsCaFile: optional({
    key: 'redis_tls_ca_file',
    env: 'REDIS_TLS_CA_FILE',
    kind: existingFile,
    shownDefault: 'unset (system CAs)',
    description: 'PEM file of the CA that signed the Redis certificates; unset: the system CAs.',
  }),
  redisKeyPrefix: setting({ key: 'redis_key_prefix', env: 'GATEWAY_REDIS_KEY_PREFIX', kind: text(), default: 'gateway:', description: 'Prefix of every Redis key the gateway writes.' }),
  redisCommandTimeoutMs: setting({
    key: 'redis_command_timeout_ms',
    env: 'GATEWAY_REDIS_COMMAND_TIMEOUT_MS',
    kind: integer(10, 10_000),
    // ~100x a healthy round trip, yet a request making a few store calls still answers in under a second.
    default: 250,
    description: 'Longest wait for one Redis command; slower fails as 503 store_unavailable.',
  }),
  requireRedisPersistence: setting({
    key: 'require_redis_persistence',
    env: 'GATEWAY_REQUIRE_REDIS_PERSISTENCE',
    kind: flag,
    // A Redis that forgets writes on restart forgets deletions too: production insists by default.
    default: { from: (s: { environment: string }) => s.environment === 'production', shown: 'true in production, false in development' },
    description: 'Refuse readiness (in production: the start) unless Redis has appendonly yes.',
  }),
  redisAckReplicas: setting({
    key: 'redis_ack_replicas',
    env: 'GATEWAY_REDIS_ACK_REPLICAS',
    kind: integer(0, 16),
    // A single server is its own last copy: WAIT would return at once, and its durability is its AOF's.
    default: { from: (s: Parameters<typeof replicated>[0]) => (replicated(s) ? 1 : 0), shown: '1 with Cluster or Sentinel, 0 with redis_url' },
    description:
      'Replicas that must hold a deletion, revocation, key removal, secret roll, key retirement or permission, scope or key change before it is answered done (Redis WAIT); fewer in time: 503 change_not_confirmed. 0: answered once the master has it.',
  }),
  redisAckTimeoutMs: setting({
    key: 'redis_ack_timeout_ms',
    env: 'GATEWAY_REDIS_ACK_TIMEOUT_MS',
    kind: integer(10, 10_000),
    // Hundreds of replica round trips; a replica that is further behind than that is lagging.
    default: 500,
    description:
      'Longest wait for those replicas; a change not confirmed in time answers 503 change_not_confirmed (it may or may not have been applied; repeating it is safe).',
  }),
  redisCacheLeaseMs: setting({
    key: 'redis_cache_lease_ms',
    env: 'GATEWAY_REDIS_CACHE_LEASE_MS',
    kind: integer(0, 1000),
    // Tens of loopback round trips: a heartbeat every quarter of it keeps the cache in use on a
    // loaded machine, and a change waits this long before it is answered.
    default: 100,
    description:
      "Bearer requests read client records, revocations and retired keys, and the token endpoint client records and failure counters, from memory, kept current by Redis's invalidations, while a heartbeat proves the invalidation connection current within this many ms; a deletion, revocation, scope change or secret roll waits it out before it is answered, so that no instance still accepts what it replaced. Every instance must use the same value. 0: read Redis on every request.",
  }),
  redisNonceFailover: setting({
    key: 'redis_nonce_failover',
    env: 'GATEWAY_REDIS_NONCE_FAILOVER',
    kind: choice(NONCE_FAILOVER_GUARDS),
    default: { from: (s: Parameters<typeof replicated>[0]) => (replicated(s) ? 'fence' : 'off'), shown: 'fence with Cluster or Sentinel, off with redis_url' },
    description:
      'How a used nonce survives a failover: fence refuses signatures created before a new master was detected (plus the clock skew); wait makes each signed request wait for redis_ack_replicas replicas; off trusts the master.',
  }),
  dataDir: setting({
    key: 'data_dir',
    env: 'GATEWAY_DATA_DIR',
    kind: path(),
    default: '.gateway',
    description: 'Directory for generated files (admin token, embedded store).',
  }),
  embeddedStorePath: setting({
    key: 'embedded_store_path',
    env: 'GATEWAY_EMBEDDED_STORE_PATH',
    kind: text('a path'),
    default: 'embedded-store.json',
    shownDefault: 'embedded-store.json (in data_dir)',
    description: 'File of the embedded store, relative to data_dir (ignored when Redis is used).',
  }),
};
