// Settings are read once at start from config/gateway.yaml (or GATEWAY_CONFIG) and the environment,
// validated, frozen, and passed to buildApp. Nothing else in the gateway reads process.env.
import { readFileSync, existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { parseCidrList, type Cidr } from '../net/cidr.js';
import { IPV6_PREFIX_RANGE } from '../net/throttle-key.js';
import { redisConnectionSettings, RedisSettingsError, usesRedis, type RedisConnectionSettings } from './redis-settings.js';
import { readSecretKeyFile } from './secret-key-file.js';
import { SOURCES } from './setting-sources.js';
import { bool, int, list, lookup, oneOf, SettingsError, str, url, type Raw } from './setting-readers.js';

/** True when A and B have exactly the same keys. */
type SameKeys<A, B> = [keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false;
// Every setting has its sources, and every source names a setting (checked when this compiles).
const EVERY_SETTING_HAS_ITS_SOURCES: SameKeys<typeof SOURCES, Settings> = true;
void EVERY_SETTING_HAS_ITS_SOURCES;

export { redactUrl, SettingsError } from './setting-readers.js';

export { SETTING_ENV_NAMES, SETTING_KEYS } from './setting-sources.js';

export const JWT_ALGORITHMS = ['EdDSA', 'ES256', 'RS256'] as const;
export type JwtAlgorithm = (typeof JWT_ALGORITHMS)[number];
/** gateway: failed client authentication is auth_error, the gateway's own code since its first API; rfc6749: invalid_client. */
export const OAUTH_ERROR_STYLES = ['gateway', 'rfc6749'] as const;
export type OAuthErrorStyle = (typeof OAUTH_ERROR_STYLES)[number];
/** fence: refuse signatures created before a detected failover; wait: WAIT for a replica per signed request; off. */
export const NONCE_FAILOVER_GUARDS = ['fence', 'wait', 'off'] as const;
export type NonceFailoverGuard = (typeof NONCE_FAILOVER_GUARDS)[number];

export interface Settings extends RedisConnectionSettings {
  readonly environment: 'development' | 'production';
  readonly host: string;
  readonly port: number;
  readonly adminHost: string;
  readonly adminPort: number;
  /** The decision listener for edge proxies (gateway/decision); null: off. */
  readonly decisionPort: number | null;
  readonly decisionHost: string;
  readonly logLevel: string;
  /** Unset (and no Cluster or Sentinel settings): the embedded single-process store. */
  readonly redisUrl: string | undefined;
  readonly redisKeyPrefix: string;
  /** Longest wait for one Redis command before it fails as StoreUnavailableError (ioredis commandTimeout). */
  readonly redisCommandTimeoutMs: number;
  /** Refuse readiness (and in production the start) unless Redis persists every write (AOF). */
  readonly requireRedisPersistence: boolean;
  /** Replicas that must hold a security-relevant change (a deletion, revocation...) before it is answered done; 0: none. */
  readonly redisAckReplicas: number;
  /** Longest wait for those replicas (Redis WAIT); fewer in time: 503 change_not_confirmed. */
  readonly redisAckTimeoutMs: number;
  /** How a used nonce survives a failover: fence (refuse older signatures), wait (a replica per request) or off. */
  readonly redisNonceFailover: NonceFailoverGuard;
  /** Where the embedded store keeps its snapshot; unset keeps it in memory only. */
  readonly embeddedStorePath: string | undefined;
  /** Unset only in development, where main.ts generates one into dataDir. */
  readonly adminToken: string | undefined;
  readonly dataDir: string;
  readonly publicUpstream: string | undefined;
  readonly bankingUpstream: string | undefined;
  readonly upstreamTimeoutMs: number;
  readonly issuer: string;
  readonly audience: string;
  readonly tokenTtlSeconds: number;
  readonly jwtSigningAlgorithm: JwtAlgorithm;
  /** Algorithms a Bearer token may be signed with; never taken from the token. */
  readonly jwtAllowedAlgorithms: readonly JwtAlgorithm[];
  /** The code the token, revoke and introspect endpoints answer a failed client authentication with. */
  readonly oauthErrorStyle: OAuthErrorStyle;
  readonly trustedProxies: readonly Cidr[];
  readonly policiesDir: string;
  readonly signatureWindowSeconds: number;
  /** Largest body of a signed banking request (the gateway buffers it to check its digest). */
  readonly maxBodyBytes: number;
  /** Largest body of the token, revoke and introspect forms. */
  readonly oauthMaxBodyBytes: number;
  /** Largest body of an admin API or dashboard request. */
  readonly adminMaxBodyBytes: number;
  /** Body bytes the gateway may hold in memory across all requests at once; past it, 503. */
  readonly bodyBufferBudgetBytes: number;
  /** Time a client has to send a whole request (headers and body). */
  readonly requestTimeoutMs: number;
  /** Time a client has to send the request headers. */
  readonly headersTimeoutMs: number;
  /** How long an idle keep-alive connection stays open between requests. */
  readonly keepAliveTimeoutMs: number;
  /** Open connections per listener; further connections are refused at once. */
  readonly maxConnections: number;
  /** Failed authentications per credential and address pair within the window. */
  readonly throttleMaxFailures: number;
  /** Failed authentications per address, whatever credential they name. */
  readonly throttleMaxFailuresPerAddress: number;
  /** Failed authentications per credential from all addresses together (a ceiling against distributed guessing). */
  readonly throttleMaxFailuresPerCredential: number;
  /** The failure throttle (the only per-address counters) counts an IPv6 address by its network of this many bits; IPv4 per address. */
  readonly throttleIpv6Prefix: number;
  readonly throttleWindowSeconds: number;
  /** Names the admin listener answers to besides IP literals (DNS rebinding defence). */
  readonly adminHostnames: readonly string[];
  /** A JWKS file of private signing keys (first is active); unset: keys are generated and kept in the store. */
  readonly jwtSigningKeyFile: string | undefined;
  /** A file with the client-secret hashing key (hex or base64url, 32+ bytes); unset: generated and kept in the store. */
  readonly clientSecretHashKeyFile: string | undefined;
  /** Dashboard users who sign in with a password (besides the admin token). */
  readonly dashboardUsers: readonly DashboardUser[];
  readonly sessionTtlSeconds: number;
  /** Mark session cookies Secure; set when the admin listener is served over TLS. */
  readonly cookieSecure: boolean;
  /** On SIGTERM: seconds of serving with /readyz 503 and Connection: close before the listeners stop accepting. */
  readonly shutdownDrainSeconds: number;
  /** Processes serving the same ports (node:cluster); 1 runs no cluster. */
  readonly workers: number;
  /** Where the process to signal (the primary, with workers) writes its pid; unset: no file. */
  readonly pidFile: string | undefined;
}

export interface DashboardUser {
  readonly username: string;
  /** scrypt$N$r$p$salt$hash, as `gatewayctl hash-password` prints it. */
  readonly passwordHash: string;
}

/** "user:scrypt$..." entries (comma-separated in the environment, a list in YAML). */
function dashboardUsers(yaml: Raw, env: NodeJS.ProcessEnv): DashboardUser[] {
  const name = lookup('dashboardUsers', yaml, env)[1];
  const users = list('dashboardUsers', yaml, env, []).map((entry) => {
    const colon = entry.indexOf(':');
    const username = entry.slice(0, colon);
    const passwordHash = entry.slice(colon + 1);
    if (colon < 1 || !/^[A-Za-z0-9._@-]{1,64}$/.test(username)) throw new SettingsError(name, 'each entry must be username:hash with a username of letters, digits, . _ @ -');
    if (!/^scrypt\$\d+\$\d+\$\d+\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/.test(passwordHash)) {
      throw new SettingsError(name, `the hash for ${username} is not a scrypt hash as printed by gatewayctl hash-password`);
    }
    return { username, passwordHash };
  });
  if (new Set(users.map((u) => u.username)).size !== users.length) throw new SettingsError(name, 'a username appears twice');
  return users;
}

/**
 * Three failure ceilings: per pair, per address (network), per credential. The pair ceiling is
 * what one network can spend of a credential's ceiling in a window, so the credential ceiling is
 * at least twice it: no single network can refuse a credential to its owner (gateway/http/failure-throttle.ts).
 */
function throttleLimits(yaml: Raw, env: NodeJS.ProcessEnv) {
  const pair = int('throttleMaxFailures', yaml, env, 10, 1, 100_000);
  const perAddress = int('throttleMaxFailuresPerAddress', yaml, env, Math.max(pair, 50), 1, 1_000_000);
  const perCredential = int('throttleMaxFailuresPerCredential', yaml, env, Math.max(perAddress, 2 * pair, 1000), 1, 10_000_000);
  if (perAddress < pair) throw new SettingsError(lookup('throttleMaxFailuresPerAddress', yaml, env)[1], `must be at least throttle_max_failures (${pair})`);
  if (perCredential < 2 * pair) {
    throw new SettingsError(lookup('throttleMaxFailuresPerCredential', yaml, env)[1], `must be at least twice throttle_max_failures (${2 * pair}), so that one network cannot reach it alone`);
  }
  return {
    throttleMaxFailures: pair,
    throttleMaxFailuresPerAddress: perAddress,
    throttleMaxFailuresPerCredential: perCredential,
    // /64 by default: the network one IPv6 host or LAN commonly holds (RFC 4291 interface identifiers).
    throttleIpv6Prefix: int('throttleIpv6Prefix', yaml, env, 64, IPV6_PREFIX_RANGE.min, IPV6_PREFIX_RANGE.max),
  };
}

/** Host names (not IP literals, which are always accepted) the admin listener answers to. */
function adminHostnames(yaml: Raw, env: NodeJS.ProcessEnv): string[] {
  const names = list('adminHostnames', yaml, env, ['localhost']).map((n) => n.toLowerCase());
  for (const name of names) {
    if (!/^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/.test(name)) {
      throw new SettingsError(lookup('adminHostnames', yaml, env)[1], `${JSON.stringify(name)} is not a host name (no port, no scheme)`);
    }
  }
  return names;
}

/** GATEWAY_WORKERS: a count or `auto` (one per available core). Several need a store they share. */
function workerCount(yaml: Raw, env: NodeJS.ProcessEnv, sharedStore: boolean): number {
  const [value, name] = lookup('workers', yaml, env);
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a YAML/env value of any kind; only the text 'auto' matters
  const count = String(value ?? '').trim().toLowerCase() === 'auto' ? availableParallelism() : int('workers', yaml, env, 1, 1, 256);
  if (count > 1 && !sharedStore) {
    throw new SettingsError(name, `${count} workers cannot share the embedded store (it lives in one process): set REDIS_URL, or GATEWAY_WORKERS=1`);
  }
  return count;
}

/**
 * What a change and a used nonce must reach before they count. A Sentinel or Cluster master has
 * replicas one of which may be promoted, so by default a change waits for one of them; a single
 * server (REDIS_URL) is its own last copy: nothing to wait for (WAIT would return at once), and
 * its durability is its AOF's.
 */
function redisReplication(yaml: Raw, env: NodeJS.ProcessEnv, redis: RedisConnectionSettings) {
  const replicated = redis.redisClusterNodes.length > 0 || redis.redisSentinels.length > 0;
  const redisAckReplicas = int('redisAckReplicas', yaml, env, replicated ? 1 : 0, 0, 16);
  const redisNonceFailover = oneOf('redisNonceFailover', yaml, env, NONCE_FAILOVER_GUARDS, replicated ? 'fence' : 'off');
  if (redisNonceFailover === 'wait' && redisAckReplicas === 0) {
    throw new SettingsError(lookup('redisNonceFailover', yaml, env)[1], `wait needs ${SOURCES.redisAckReplicas[1]} of at least 1 (the replicas each used nonce waits for)`);
  }
  // 500 ms: hundreds of replica round trips; a replica that is further behind than that is lagging.
  return { redisAckReplicas, redisAckTimeoutMs: int('redisAckTimeoutMs', yaml, env, 500, 10, 10_000), redisNonceFailover };
}

/** Cluster or Sentinel topology, credentials and TLS (redis-settings.ts), reported as SettingsError. */
function redisConnection(yaml: Raw, env: NodeJS.ProcessEnv, redisUrl: string | undefined, cwd: string): RedisConnectionSettings {
  try {
    return redisConnectionSettings((key) => lookup(key, yaml, env), redisUrl, lookup('redisUrl', yaml, env)[1], cwd);
  } catch (error) {
    if (error instanceof RedisSettingsError) throw new SettingsError(error.setting, error.problem);
    throw error;
  }
}

function readYaml(path: string): Raw {
  if (!existsSync(path)) return {};
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new SettingsError(path, `is not valid YAML: ${(error as Error).message}`);
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new SettingsError(path, 'must be a YAML mapping');
  const known = new Set<string>(Object.values(SOURCES).map(([yamlKey]) => yamlKey));
  for (const k of Object.keys(doc)) if (!known.has(k)) throw new SettingsError(`${k} (in ${path})`, 'is not a known setting');
  return doc as Raw;
}

export interface LoadOptions {
  env?: NodeJS.ProcessEnv;
  /** The YAML file; default GATEWAY_CONFIG or config/gateway.yaml. */
  configFile?: string;
  cwd?: string;
}

export function loadSettings(options: LoadOptions = {}): Settings {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const file = resolve(cwd, options.configFile ?? env.GATEWAY_CONFIG ?? 'config/gateway.yaml');
  if (env.GATEWAY_CONFIG && !existsSync(file)) throw new SettingsError('GATEWAY_CONFIG', `file ${file} does not exist`);
  return settingsFrom(readYaml(file), env, cwd);
}

/** Builds settings from a YAML mapping and an environment (tests pass both directly). */
export function settingsFrom(yaml: Raw, env: NodeJS.ProcessEnv = {}, cwd = process.cwd()): Settings {
  const environment = oneOf('environment', yaml, env, ['development', 'production'] as const, 'development');
  const port = int('port', yaml, env, 8080, 0, 65535);
  const adminPort = int('adminPort', yaml, env, 8081, 0, 65535);
  const dataDir = resolve(cwd, str('dataDir', yaml, env, '.gateway')!);
  const redisUrl = url('redisUrl', yaml, env, ['redis:', 'rediss:']);
  const redis = redisConnection(yaml, env, redisUrl, cwd);
  const sharedStore = usesRedis({ ...redis, redisUrl });

  const adminToken = str('adminToken', yaml, env);
  if (adminToken !== undefined && adminToken.length < 32) {
    throw new SettingsError(lookup('adminToken', yaml, env)[1], 'must be at least 32 characters (use: openssl rand -hex 32)');
  }
  if (adminToken === undefined && environment === 'production') {
    throw new SettingsError(SOURCES.adminToken[1], 'is required in production');
  }

  const publicUpstream = url('publicUpstream', yaml, env, ['http:', 'https:']);
  const bankingUpstream = url('bankingUpstream', yaml, env, ['http:', 'https:']);
  if (environment === 'production') {
    // Production never falls back to the example echo upstreams.
    if (!publicUpstream) throw new SettingsError(SOURCES.publicUpstream[1], 'is required in production');
    if (!bankingUpstream) throw new SettingsError(SOURCES.bankingUpstream[1], 'is required in production');
    if (!sharedStore) {
      throw new SettingsError(SOURCES.redisUrl[1], 'is required in production, or REDIS_CLUSTER_NODES, or REDIS_SENTINELS with REDIS_SENTINEL_MASTER (the embedded store is single-process)');
    }
  }

  const jwtAllowedAlgorithms = list('jwtAllowedAlgorithms', yaml, env, ['EdDSA']);
  for (const alg of jwtAllowedAlgorithms) {
    if (!(JWT_ALGORITHMS as readonly string[]).includes(alg)) {
      throw new SettingsError(lookup('jwtAllowedAlgorithms', yaml, env)[1], `${JSON.stringify(alg)} is not one of ${JWT_ALGORITHMS.join(', ')}`);
    }
  }
  if (jwtAllowedAlgorithms.length === 0) throw new SettingsError(SOURCES.jwtAllowedAlgorithms[1], 'must name at least one algorithm');
  const jwtSigningAlgorithm = oneOf('jwtSigningAlgorithm', yaml, env, JWT_ALGORITHMS, 'EdDSA');
  if (!jwtAllowedAlgorithms.includes(jwtSigningAlgorithm)) {
    throw new SettingsError(SOURCES.jwtSigningAlgorithm[1], `${jwtSigningAlgorithm} is not in the allowed algorithms (${jwtAllowedAlgorithms.join(', ')})`);
  }

  let trustedProxies: Cidr[];
  try {
    trustedProxies = parseCidrList(list('trustedProxies', yaml, env, []));
  } catch (error) {
    throw new SettingsError(lookup('trustedProxies', yaml, env)[1], (error as Error).message);
  }

  // Only a trusted proxy may ask for decisions (it names the client address): none trusted, none may.
  // Unset, empty or null (a bare `decision_port:` in the YAML): off.
  const decisionPort = str('decisionPort', yaml, env) === undefined ? null : int('decisionPort', yaml, env, 0, 0, 65535);
  if (decisionPort !== null && trustedProxies.length === 0) {
    throw new SettingsError(lookup('decisionPort', yaml, env)[1], `needs ${SOURCES.trustedProxies[1]} to name the edge proxies that may ask for decisions (e.g. 127.0.0.1/32)`);
  }

  const jwtSigningKeyFile = str('jwtSigningKeyFile', yaml, env);
  if (jwtSigningKeyFile !== undefined && !existsSync(resolve(cwd, jwtSigningKeyFile))) {
    throw new SettingsError(lookup('jwtSigningKeyFile', yaml, env)[1], `file ${resolve(cwd, jwtSigningKeyFile)} does not exist`);
  }

  const pidFile = str('pidFile', yaml, env);
  const clientSecretHashKeyFile = str('clientSecretHashKeyFile', yaml, env);
  if (clientSecretHashKeyFile !== undefined) {
    try {
      readSecretKeyFile(resolve(cwd, clientSecretHashKeyFile));
    } catch (error) {
      throw new SettingsError(lookup('clientSecretHashKeyFile', yaml, env)[1], (error as Error).message);
    }
  }

  const issuer = url('issuer', yaml, env, ['http:', 'https:']) ?? `http://localhost:${port}`;

  const maxBodyBytes = int('maxBodyBytes', yaml, env, 1_048_576, 1, 104_857_600);
  const bodyBufferBudgetBytes = int('bodyBufferBudgetBytes', yaml, env, 33_554_432, 65_536, 4_294_967_296);
  if (bodyBufferBudgetBytes < maxBodyBytes) {
    throw new SettingsError(lookup('bodyBufferBudgetBytes', yaml, env)[1], `must be at least the largest body a request may carry (max_body_bytes, ${maxBodyBytes})`);
  }
  const requestTimeoutMs = int('requestTimeoutMs', yaml, env, 15_000, 100, 600_000);
  const headersTimeoutMs = int('headersTimeoutMs', yaml, env, Math.min(10_000, requestTimeoutMs), 100, 600_000);
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new SettingsError(lookup('headersTimeoutMs', yaml, env)[1], `must not exceed the request timeout (${requestTimeoutMs} ms)`);
  }
  const throttle = throttleLimits(yaml, env);

  const settings: Settings = {
    environment,
    host: str('host', yaml, env, '0.0.0.0')!,
    port,
    adminHost: str('adminHost', yaml, env, '127.0.0.1')!,
    adminPort,
    decisionPort,
    decisionHost: str('decisionHost', yaml, env, '127.0.0.1')!,
    logLevel: oneOf('logLevel', yaml, env, ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
    redisUrl,
    redisKeyPrefix: str('redisKeyPrefix', yaml, env, 'gateway:')!,
    // 250 ms: ~100x a healthy round trip, yet a request making a few store calls still answers in under a second.
    redisCommandTimeoutMs: int('redisCommandTimeoutMs', yaml, env, 250, 10, 10_000),
    // A Redis that forgets writes on restart forgets deletions too: production insists by default.
    requireRedisPersistence: bool('requireRedisPersistence', yaml, env, environment === 'production'),
    ...redisReplication(yaml, env, redis),
    ...redis,
    embeddedStorePath: sharedStore ? undefined : resolve(dataDir, str('embeddedStorePath', yaml, env, 'embedded-store.json')!),
    adminToken,
    dataDir,
    publicUpstream,
    bankingUpstream,
    upstreamTimeoutMs: int('upstreamTimeoutMs', yaml, env, 10_000, 100, 600_000),
    issuer: issuer.replace(/\/+$/, ''),
    audience: str('audience', yaml, env, issuer.replace(/\/+$/, ''))!,
    tokenTtlSeconds: int('tokenTtlSeconds', yaml, env, 86_400, 60, 604_800),
    jwtSigningAlgorithm,
    jwtAllowedAlgorithms: jwtAllowedAlgorithms as JwtAlgorithm[],
    oauthErrorStyle: oneOf('oauthErrorStyle', yaml, env, OAUTH_ERROR_STYLES, 'gateway'),
    trustedProxies,
    policiesDir: resolve(cwd, str('policiesDir', yaml, env, 'policies')!),
    signatureWindowSeconds: int('signatureWindowSeconds', yaml, env, 300, 5, 3600),
    maxBodyBytes,
    oauthMaxBodyBytes: int('oauthMaxBodyBytes', yaml, env, 8192, 512, 1_048_576),
    adminMaxBodyBytes: int('adminMaxBodyBytes', yaml, env, 65_536, 4096, 10_485_760),
    bodyBufferBudgetBytes,
    requestTimeoutMs,
    headersTimeoutMs,
    keepAliveTimeoutMs: int('keepAliveTimeoutMs', yaml, env, 72_000, 1000, 600_000),
    maxConnections: int('maxConnections', yaml, env, 10_000, 1, 1_000_000),
    ...throttle,
    adminHostnames: adminHostnames(yaml, env),
    throttleWindowSeconds: int('throttleWindowSeconds', yaml, env, 300, 1, 86_400),
    jwtSigningKeyFile: jwtSigningKeyFile === undefined ? undefined : resolve(cwd, jwtSigningKeyFile),
    clientSecretHashKeyFile: clientSecretHashKeyFile === undefined ? undefined : resolve(cwd, clientSecretHashKeyFile),
    dashboardUsers: dashboardUsers(yaml, env),
    sessionTtlSeconds: int('sessionTtlSeconds', yaml, env, 28_800, 60, 604_800),
    cookieSecure: bool('cookieSecure', yaml, env, false),
    shutdownDrainSeconds: int('shutdownDrainSeconds', yaml, env, 5, 0, 300),
    // Any Redis is shared by all workers; the embedded store is not.
    workers: workerCount(yaml, env, sharedStore),
    pidFile: pidFile === undefined ? undefined : resolve(cwd, pidFile),
  };
  return Object.freeze(settings);
}
