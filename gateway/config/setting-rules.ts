// The rules across settings, each named: what production requires, ceilings that follow from other
// settings, and what one setting needs of another. They run once every setting is read; the rules
// of the Redis topology are in redis-settings.ts.
import { REDIS_RULES, usesRedis } from './redis-settings.js';
import type { SettingRule } from './setting-declaration.js';
import { SETTINGS, type RegistryValues } from './setting-registry.js';

const sharedStore = (s: RegistryValues) => usesRedis(s);

export const SETTING_RULES: readonly SettingRule<RegistryValues>[] = [
  ...REDIS_RULES,
  {
    rule: 'production needs an admin token',
    involves: ['environment', 'adminToken'],
    check: (s) => (s.environment === 'production' && s.adminToken === undefined ? [{ about: 'adminToken', problem: 'is required in production', byVariable: true }] : []),
  },
  {
    rule: 'production needs Redis',
    involves: ['environment', 'redisUrl', 'redisClusterNodes', 'redisSentinels'],
    check: (s) =>
      s.environment === 'production' && !sharedStore(s)
        ? [
            {
              about: 'redisUrl',
              problem: 'is required in production, or REDIS_CLUSTER_NODES, or REDIS_SENTINELS with REDIS_SENTINEL_MASTER (the embedded store is single-process)',
              byVariable: true,
            },
          ]
        : [],
  },
  {
    rule: 'the signing algorithm is an allowed one',
    involves: ['jwtSigningAlgorithm', 'jwtAllowedAlgorithms'],
    check: (s) =>
      s.jwtAllowedAlgorithms.includes(s.jwtSigningAlgorithm)
        ? []
        : [{ about: 'jwtSigningAlgorithm', problem: `${s.jwtSigningAlgorithm} is not in the allowed algorithms (${s.jwtAllowedAlgorithms.join(', ')})`, byVariable: true }],
  },
  {
    // Only a trusted proxy may ask for decisions (it names the client address): none trusted, none may.
    rule: 'the decision listener needs trusted proxies',
    involves: ['decisionPort', 'decisionGrpcPort', 'trustedProxies'],
    check: (s) =>
      s.trustedProxies.length > 0
        ? []
        : (['decisionPort', 'decisionGrpcPort'] as const)
            .filter((about) => s[about] !== null)
            .map((about) => ({ about, problem: `needs ${SETTINGS.trustedProxies.env} to name the edge proxies that may ask for decisions (e.g. 127.0.0.1/32)` })),
  },
  {
    rule: 'the body budget holds the largest body',
    involves: ['bodyBufferBudgetBytes', 'maxBodyBytes'],
    check: (s) =>
      s.bodyBufferBudgetBytes < s.maxBodyBytes
        ? [{ about: 'bodyBufferBudgetBytes', problem: `must be at least the largest body a request may carry (max_body_bytes, ${s.maxBodyBytes})` }]
        : [],
  },
  {
    rule: 'the headers come within the request time',
    involves: ['headersTimeoutMs', 'requestTimeoutMs'],
    check: (s) =>
      s.headersTimeoutMs > s.requestTimeoutMs ? [{ about: 'headersTimeoutMs', problem: `must not exceed the request timeout (${s.requestTimeoutMs} ms)` }] : [],
  },
  {
    // The pair ceiling is what one network can spend of a credential's ceiling in a window, so the
    // credential ceiling is at least twice it: no single network can refuse a credential to its
    // owner (gateway/http/failure-throttle.ts).
    rule: 'the failure ceilings grow from pair to address to credential',
    involves: ['throttleMaxFailures', 'throttleMaxFailuresPerAddress', 'throttleMaxFailuresPerCredential'],
    check: (s) => [
      ...(s.throttleMaxFailuresPerAddress < s.throttleMaxFailures
        ? [{ about: 'throttleMaxFailuresPerAddress' as const, problem: `must be at least throttle_max_failures (${s.throttleMaxFailures})` }]
        : []),
      ...(s.throttleMaxFailuresPerCredential < 2 * s.throttleMaxFailures
        ? [
            {
              about: 'throttleMaxFailuresPerCredential' as const,
              problem: `must be at least twice throttle_max_failures (${2 * s.throttleMaxFailures}), so that one network cannot reach it alone`,
            },
          ]
        : []),
    ],
  },
  {
    rule: 'several workers need a shared store',
    involves: ['workers', 'redisUrl', 'redisClusterNodes', 'redisSentinels'],
    check: (s) =>
      s.workers > 1 && !sharedStore(s)
        ? [{ about: 'workers', problem: `${s.workers} workers cannot share the embedded store (it lives in one process): set REDIS_URL, or GATEWAY_WORKERS=1` }]
        : [],
  },
  {
    rule: 'nonce failover wait needs replicas to wait for',
    involves: ['redisNonceFailover', 'redisAckReplicas'],
    check: (s) =>
      s.redisNonceFailover === 'wait' && s.redisAckReplicas === 0
        ? [{ about: 'redisNonceFailover', problem: `wait needs ${SETTINGS.redisAckReplicas.env} of at least 1 (the replicas each used nonce waits for)` }]
        : [],
  },
];
