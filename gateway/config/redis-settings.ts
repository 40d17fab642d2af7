// How the gateway reaches Redis besides REDIS_URL: a Cluster (REDIS_CLUSTER_NODES) or a master
// behind Sentinel (REDIS_SENTINELS + REDIS_SENTINEL_MASTER), and the credentials and TLS they use.
// At most one topology; no value here is ever echoed back in an error (passwords above all).
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

export interface RedisNode {
  readonly host: string;
  readonly port: number;
}

export interface RedisConnectionSettings {
  /** Seed nodes of a Redis Cluster; empty unless the store is a Cluster. */
  readonly redisClusterNodes: readonly RedisNode[];
  /** Sentinels that know the master; empty unless the store is behind Sentinel. */
  readonly redisSentinels: readonly RedisNode[];
  /** The master name the sentinels monitor (`sentinel monitor <name> ...`). */
  readonly redisSentinelMaster: string | undefined;
  /** ACL user and password of the Redis nodes (Cluster and Sentinel; with REDIS_URL, instead of the URL's). */
  readonly redisUsername: string | undefined;
  readonly redisPassword: string | undefined;
  /** ACL user and password of the sentinels themselves (requirepass in sentinel.conf). */
  readonly redisSentinelUsername: string | undefined;
  readonly redisSentinelPassword: string | undefined;
  /** TLS to every Redis node and sentinel (a rediss:// REDIS_URL implies it). */
  readonly redisTls: boolean;
  /** PEM file of the CA that signed the Redis certificates; unset: the system's CAs. */
  readonly redisTlsCaFile: string | undefined;
}

/** Reads one raw value and the name an error should report (lent by settings.ts). */
export type ReadSetting = (key: keyof RedisConnectionSettings) => [unknown, string];

export class RedisSettingsError extends Error {
  constructor(readonly setting: string, readonly problem: string) {
    super(`Invalid setting ${setting}: ${problem}`);
  }
}

function text(read: ReadSetting, key: keyof RedisConnectionSettings): string | undefined {
  const [value, name] = read(key);
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string' && typeof value !== 'number') throw new RedisSettingsError(name, 'must be a string');
  return String(value);
}

/** `host:port,host:port` (or a YAML list); IPv6 hosts in brackets: `[::1]:6379`. */
function nodes(read: ReadSetting, key: 'redisClusterNodes' | 'redisSentinels'): RedisNode[] {
  const [value, name] = read(key);
  if (value === undefined || value === null || value === '') return [];
  const entries = Array.isArray(value) ? value.map(String) : typeof value === 'string' ? value.split(',') : undefined;
  if (!entries) throw new RedisSettingsError(name, 'must be a list of host:port or a comma-separated string');
  const parsed = entries.map((e) => e.trim()).filter(Boolean).map((entry) => {
    const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/.exec(entry);
    const port = Number(match?.[3]);
    // Whatever precedes an @ may be a password: never shown.
    const shown = entry.includes('@') ? `***@${entry.slice(entry.lastIndexOf('@') + 1)}` : entry;
    if (!match || port < 1 || port > 65535) throw new RedisSettingsError(name, `${JSON.stringify(shown)} is not host:port (credentials go in REDIS_USERNAME / REDIS_PASSWORD)`);
    return { host: match[1] ?? match[2]!, port };
  });
  if (parsed.length === 0) throw new RedisSettingsError(name, 'must name at least one host:port');
  return parsed;
}

function flag(read: ReadSetting, key: keyof RedisConnectionSettings): boolean {
  const [value, name] = read(key);
  if (value === undefined || value === null || value === '' || value === false || value === 'false') return false;
  if (value === true || value === 'true') return true;
  throw new RedisSettingsError(name, `must be true or false, got ${JSON.stringify(value)}`);
}

export function redisConnectionSettings(read: ReadSetting, redisUrl: string | undefined, redisUrlName: string, cwd: string): RedisConnectionSettings {
  const redisClusterNodes = nodes(read, 'redisClusterNodes');
  const redisSentinels = nodes(read, 'redisSentinels');
  const redisSentinelMaster = text(read, 'redisSentinelMaster');
  const name = (key: keyof RedisConnectionSettings) => read(key)[1];

  const topologies = [
    redisUrl !== undefined && redisUrlName,
    redisClusterNodes.length > 0 && name('redisClusterNodes'),
    redisSentinels.length > 0 && name('redisSentinels'),
  ].filter((n): n is string => typeof n === 'string');
  if (topologies.length > 1) {
    throw new RedisSettingsError(topologies.join(' and '), 'name two Redis topologies; set exactly one of REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS');
  }
  if (redisSentinels.length > 0 && redisSentinelMaster === undefined) throw new RedisSettingsError(name('redisSentinelMaster'), 'is required with REDIS_SENTINELS');
  if (redisSentinelMaster !== undefined && redisSentinels.length === 0) throw new RedisSettingsError(name('redisSentinelMaster'), 'applies only with REDIS_SENTINELS');
  if (redisSentinelMaster !== undefined && !/^[A-Za-z0-9._-]{1,128}$/.test(redisSentinelMaster)) {
    throw new RedisSettingsError(name('redisSentinelMaster'), 'must be a master name of letters, digits, . _ -');
  }

  const redisUsername = text(read, 'redisUsername');
  const redisPassword = text(read, 'redisPassword');
  const redisSentinelUsername = text(read, 'redisSentinelUsername');
  const redisSentinelPassword = text(read, 'redisSentinelPassword');
  for (const key of ['redisSentinelUsername', 'redisSentinelPassword'] as const) {
    if (read(key)[0] !== undefined && read(key)[0] !== '' && redisSentinels.length === 0) throw new RedisSettingsError(name(key), 'applies only with REDIS_SENTINELS');
  }
  if (redisUrl !== undefined && (redisPassword !== undefined || redisUsername !== undefined)) {
    const inUrl = new URL(redisUrl);
    if (inUrl.password || inUrl.username) {
      throw new RedisSettingsError(`${redisUrlName} and ${name(redisPassword !== undefined ? 'redisPassword' : 'redisUsername')}`, 'both carry credentials; keep them in one place');
    }
  }

  const redisTls = flag(read, 'redisTls');
  const caFile = text(read, 'redisTlsCaFile');
  if (caFile !== undefined && !existsSync(resolve(cwd, caFile))) throw new RedisSettingsError(name('redisTlsCaFile'), `file ${resolve(cwd, caFile)} does not exist`);
  if (caFile !== undefined && !redisTls && !redisUrl?.startsWith('rediss:')) throw new RedisSettingsError(name('redisTlsCaFile'), 'applies only with REDIS_TLS=true or a rediss:// URL');

  return {
    redisClusterNodes,
    redisSentinels,
    redisSentinelMaster,
    redisUsername,
    redisPassword,
    redisSentinelUsername,
    redisSentinelPassword,
    redisTls,
    redisTlsCaFile: caFile === undefined ? undefined : resolve(cwd, caFile),
  };
}

/** True when any Redis topology is configured (else the embedded store). */
export function usesRedis(settings: Pick<RedisConnectionSettings, 'redisClusterNodes' | 'redisSentinels'> & { redisUrl: string | undefined }): boolean {
  return settings.redisUrl !== undefined || settings.redisClusterNodes.length > 0 || settings.redisSentinels.length > 0;
}
