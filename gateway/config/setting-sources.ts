// Where each setting comes from: its key in config/gateway.yaml and its environment variable. The
// readers in settings.ts, the generated reference (npm run docs) and the deployment checks use it.
import type { Settings } from './settings.js';

/** Each setting: its YAML key, its environment variable, and how to read it. */
export const SOURCES = {
  environment: ['environment', 'GATEWAY_ENV'],
  host: ['host', 'GATEWAY_HOST'],
  port: ['port', 'GATEWAY_PORT'],
  adminHost: ['admin_host', 'GATEWAY_ADMIN_HOST'],
  adminPort: ['admin_port', 'GATEWAY_ADMIN_PORT'],
  decisionPort: ['decision_port', 'GATEWAY_DECISION_PORT'],
  decisionHost: ['decision_host', 'GATEWAY_DECISION_HOST'],
  logLevel: ['log_level', 'GATEWAY_LOG_LEVEL'],
  redisUrl: ['redis_url', 'REDIS_URL'],
  redisKeyPrefix: ['redis_key_prefix', 'GATEWAY_REDIS_KEY_PREFIX'],
  redisClusterNodes: ['redis_cluster_nodes', 'REDIS_CLUSTER_NODES'],
  redisSentinels: ['redis_sentinels', 'REDIS_SENTINELS'],
  redisSentinelMaster: ['redis_sentinel_master', 'REDIS_SENTINEL_MASTER'],
  redisUsername: ['redis_username', 'REDIS_USERNAME'],
  redisPassword: ['redis_password', 'REDIS_PASSWORD'],
  redisSentinelUsername: ['redis_sentinel_username', 'REDIS_SENTINEL_USERNAME'],
  redisSentinelPassword: ['redis_sentinel_password', 'REDIS_SENTINEL_PASSWORD'],
  redisTls: ['redis_tls', 'REDIS_TLS'],
  redisTlsCaFile: ['redis_tls_ca_file', 'REDIS_TLS_CA_FILE'],
  redisCommandTimeoutMs: ['redis_command_timeout_ms', 'GATEWAY_REDIS_COMMAND_TIMEOUT_MS'],
  requireRedisPersistence: ['require_redis_persistence', 'GATEWAY_REQUIRE_REDIS_PERSISTENCE'],
  redisAckReplicas: ['redis_ack_replicas', 'GATEWAY_REDIS_ACK_REPLICAS'],
  redisAckTimeoutMs: ['redis_ack_timeout_ms', 'GATEWAY_REDIS_ACK_TIMEOUT_MS'],
  redisNonceFailover: ['redis_nonce_failover', 'GATEWAY_REDIS_NONCE_FAILOVER'],
  embeddedStorePath: ['embedded_store_path', 'GATEWAY_EMBEDDED_STORE_PATH'],
  adminToken: ['admin_token', 'GATEWAY_ADMIN_TOKEN'],
  dataDir: ['data_dir', 'GATEWAY_DATA_DIR'],
  publicUpstream: ['public_upstream', 'PUBLIC_UPSTREAM'],
  bankingUpstream: ['banking_upstream', 'BANKING_UPSTREAM'],
  upstreamTimeoutMs: ['upstream_timeout_ms', 'GATEWAY_UPSTREAM_TIMEOUT_MS'],
  issuer: ['issuer', 'GATEWAY_ISSUER'],
  audience: ['audience', 'GATEWAY_AUDIENCE'],
  tokenTtlSeconds: ['token_ttl_seconds', 'GATEWAY_TOKEN_TTL_SECONDS'],
  jwtSigningAlgorithm: ['jwt_signing_algorithm', 'GATEWAY_JWT_SIGNING_ALGORITHM'],
  jwtAllowedAlgorithms: ['jwt_allowed_algorithms', 'GATEWAY_JWT_ALLOWED_ALGORITHMS'],
  oauthErrorStyle: ['oauth_error_style', 'GATEWAY_OAUTH_ERROR_STYLE'],
  trustedProxies: ['trusted_proxies', 'GATEWAY_TRUSTED_PROXIES'],
  policiesDir: ['policies_dir', 'GATEWAY_POLICIES_DIR'],
  signatureWindowSeconds: ['signature_window_seconds', 'GATEWAY_SIGNATURE_WINDOW_SECONDS'],
  maxBodyBytes: ['max_body_bytes', 'GATEWAY_MAX_BODY_BYTES'],
  oauthMaxBodyBytes: ['oauth_max_body_bytes', 'GATEWAY_OAUTH_MAX_BODY_BYTES'],
  adminMaxBodyBytes: ['admin_max_body_bytes', 'GATEWAY_ADMIN_MAX_BODY_BYTES'],
  bodyBufferBudgetBytes: ['body_buffer_budget_bytes', 'GATEWAY_BODY_BUFFER_BUDGET_BYTES'],
  requestTimeoutMs: ['request_timeout_ms', 'GATEWAY_REQUEST_TIMEOUT_MS'],
  headersTimeoutMs: ['headers_timeout_ms', 'GATEWAY_HEADERS_TIMEOUT_MS'],
  keepAliveTimeoutMs: ['keep_alive_timeout_ms', 'GATEWAY_KEEP_ALIVE_TIMEOUT_MS'],
  maxConnections: ['max_connections', 'GATEWAY_MAX_CONNECTIONS'],
  throttleMaxFailures: ['throttle_max_failures', 'GATEWAY_THROTTLE_MAX_FAILURES'],
  throttleMaxFailuresPerAddress: ['throttle_max_failures_per_address', 'GATEWAY_THROTTLE_MAX_FAILURES_PER_ADDRESS'],
  throttleMaxFailuresPerCredential: ['throttle_max_failures_per_credential', 'GATEWAY_THROTTLE_MAX_FAILURES_PER_CREDENTIAL'],
  throttleIpv6Prefix: ['throttle_ipv6_prefix', 'GATEWAY_THROTTLE_IPV6_PREFIX'],
  adminHostnames: ['admin_hostnames', 'GATEWAY_ADMIN_HOSTNAMES'],
  throttleWindowSeconds: ['throttle_window_seconds', 'GATEWAY_THROTTLE_WINDOW_SECONDS'],
  jwtSigningKeyFile: ['jwt_signing_key_file', 'GATEWAY_JWT_SIGNING_KEY_FILE'],
  clientSecretHashKeyFile: ['client_secret_hash_key_file', 'GATEWAY_CLIENT_SECRET_HASH_KEY_FILE'],
  dashboardUsers: ['dashboard_users', 'GATEWAY_DASHBOARD_USERS'],
  sessionTtlSeconds: ['session_ttl_seconds', 'GATEWAY_SESSION_TTL_SECONDS'],
  cookieSecure: ['cookie_secure', 'GATEWAY_COOKIE_SECURE'],
  shutdownDrainSeconds: ['shutdown_drain_seconds', 'GATEWAY_SHUTDOWN_DRAIN_SECONDS'],
  workers: ['workers', 'GATEWAY_WORKERS'],
  pidFile: ['pid_file', 'GATEWAY_PID_FILE'],
} as const satisfies Record<keyof Settings, readonly [string, string]>;

export type Key = keyof typeof SOURCES;

/** Each setting's config key and environment variable, in SOURCES order (for generated references). */
export const SETTING_KEYS: ReadonlyArray<{ readonly name: Key; readonly yamlKey: string; readonly envName: string }> =
  (Object.keys(SOURCES) as Key[]).map((name) => ({ name, yamlKey: SOURCES[name][0], envName: SOURCES[name][1] }));

/** Every environment variable the gateway reads (deployment files are checked against it). */
export const SETTING_ENV_NAMES: readonly string[] = Object.values(SOURCES).map(([, envName]) => envName);
