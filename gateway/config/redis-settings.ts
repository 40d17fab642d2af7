// How the gateway reaches Redis besides REDIS_URL: a Cluster (REDIS_CLUSTER_NODES) or a master
// behind Sentinel (REDIS_SENTINELS + REDIS_SENTINEL_MASTER), and the credentials and TLS they use.
// The settings themselves are declared in setting-registry.ts; here are the kind of a node list and
// the rules of the topology. No value here is ever echoed back in an error (passwords above all).
import type { SettingRule } from './setting-declaration.js';
import { list, refuse } from './setting-kinds.js';

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

/** `host:port,host:port` (or a YAML list); IPv6 hosts in brackets: `[::1]:6379`. */
export const redisNodes = list(
  (entry): RedisNode => {
    const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/.exec(entry);
    const port = Number(match?.[3]);
    // Whatever precedes an @ may be a password: never shown.
    const shown = entry.includes('@') ? `***@${entry.slice(entry.lastIndexOf('@') + 1)}` : entry;
    if (!match || port < 1 || port > 65535) refuse(`${JSON.stringify(shown)} is not host:port (credentials go in REDIS_USERNAME / REDIS_PASSWORD)`);
    return { host: match[1] ?? match[2]!, port };
  },
  'host:port,... (a list in YAML)',
  { of: 'host:port', empty: 'must name at least one host:port' },
);

type RedisValues = RedisConnectionSettings & { readonly redisUrl: string | undefined };

/** The rules of the Redis topology: at most one, a Sentinel master named with its sentinels, credentials in one place. */
export const REDIS_RULES: readonly SettingRule<RedisValues>[] = [
  {
    rule: 'at most one Redis topology',
    involves: ['redisUrl', 'redisClusterNodes', 'redisSentinels'],
    check: (s) => {
      const named = [
        ...(s.redisUrl !== undefined ? ['redisUrl' as const] : []),
        ...(s.redisClusterNodes.length > 0 ? ['redisClusterNodes' as const] : []),
        ...(s.redisSentinels.length > 0 ? ['redisSentinels' as const] : []),
      ];
      return named.length > 1 ? [{ about: named, problem: 'name two Redis topologies; set exactly one of REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS' }] : [];
    },
  },
  {
    rule: 'Sentinel settings only with sentinels, and the master name with them',
    involves: ['redisSentinels', 'redisSentinelMaster', 'redisSentinelUsername', 'redisSentinelPassword'],
    check: (s) => {
      if (s.redisSentinels.length > 0) return s.redisSentinelMaster === undefined ? [{ about: 'redisSentinelMaster', problem: 'is required with REDIS_SENTINELS' }] : [];
      const without = (['redisSentinelMaster', 'redisSentinelUsername', 'redisSentinelPassword'] as const).filter((key) => s[key] !== undefined);
      return without.map((key) => ({ about: key, problem: 'applies only with REDIS_SENTINELS' }));
    },
  },
  {
    rule: 'Redis credentials in one place',
    involves: ['redisUrl', 'redisUsername', 'redisPassword'],
    check: (s) => {
      if (s.redisUrl === undefined || (s.redisPassword === undefined && s.redisUsername === undefined)) return [];
      const inUrl = new URL(s.redisUrl);
      if (!inUrl.password && !inUrl.username) return [];
      return [{ about: ['redisUrl', s.redisPassword !== undefined ? 'redisPassword' : 'redisUsername'], problem: 'both carry credentials; keep them in one place' }];
    },
  },
  {
    rule: 'a CA file only with TLS',
    involves: ['redisTlsCaFile', 'redisTls', 'redisUrl'],
    check: (s) =>
      s.redisTlsCaFile !== undefined && !s.redisTls && !s.redisUrl?.startsWith('rediss:')
        ? [{ about: 'redisTlsCaFile', problem: 'applies only with REDIS_TLS=true or a rediss:// URL' }]
        : [],
  },
];

/** True when any Redis topology is configured (else the embedded store). */
export function usesRedis(settings: Pick<RedisConnectionSettings, 'redisClusterNodes' | 'redisSentinels'> & { redisUrl: string | undefined }): boolean {
  return settings.redisUrl !== undefined || settings.redisClusterNodes.length > 0 || settings.redisSentinels.length > 0;
}
