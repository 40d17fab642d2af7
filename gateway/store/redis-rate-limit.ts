// Rate limits on Redis: GCRA (gcra.ts) in one short script on ONE key, so it is atomic, costs one
// round trip, and runs unchanged on a Redis Cluster (the key's {credential} hash tag picks the slot).
// The script reads the clock of the Redis that holds the key, so every gateway instance counts
// against the same time whatever its own clock says.
import { createHash } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { decisionOf, spacingOf, type RateLimitDecision, type RateQuota } from './gcra.js';

// KEYS[1]: the credential's TAT on the route, whole microseconds. ARGV: interval, span (µs).
// Allowed: stores the new TAT (kept until it has passed) and returns {1, remaining, 0, reset}.
// Refused: writes nothing and returns {0, 0, retry after, reset}. string.format keeps all 16
// digits of the TAT, which tostring would round.
const GCRA = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
local interval, span = tonumber(ARGV[1]), tonumber(ARGV[2])
local tat = math.max(tonumber(redis.call('GET', KEYS[1]) or now), now)
local new_tat = tat + interval
if new_tat - now > span then return {0, 0, new_tat - span - now, tat - now} end
redis.call('SET', KEYS[1], string.format('%d', new_tat), 'PX', math.ceil((new_tat - now) / 1000))
return {1, math.floor((now + span - new_tat) / interval), 0, new_tat - now}`;
const GCRA_SHA = createHash('sha1').update(GCRA).digest('hex');

/** The key of one credential on one route; the braces are the Cluster hash tag of the credential. */
export function rateLimitKey(prefix: string, credentialId: string, routeId: string): string {
  return `${prefix}rl:{${credentialId}}:${routeId}`;
}

/** Counts one request against the rule; one round trip (EVALSHA, or EVAL once after a script flush). */
export async function takeRateLimit(redis: Redis | Cluster, key: string, rule: RateQuota): Promise<RateLimitDecision> {
  const { intervalUs, spanUs } = spacingOf(rule);
  let reply: unknown;
  try {
    reply = await redis.evalsha(GCRA_SHA, 1, key, intervalUs, spanUs);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    reply = await redis.eval(GCRA, 1, key, intervalUs, spanUs);
  }
  const [allowed, remaining, retryAfterUs, resetUs] = reply as [number, number, number, number];
  return decisionOf(allowed === 1, remaining, retryAfterUs, resetUs);
}
