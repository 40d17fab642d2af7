// Failure counters and rate limits on Redis: each check-and-count is one script, so concurrent
// instances never overshoot a limit.
import type { RateLimitDecision, RateQuota } from '../gcra.js';
import { rateLimitKey, takeRateLimit } from '../redis-rate-limit.js';
import type { AttemptLimit, AttemptReservation, CounterStore } from '../types.js';
import type { RedisStoreConnection } from './connection.js';

export class RedisCounterStore implements CounterStore {
  constructor(private readonly connection: RedisStoreConnection) {}

  async reserveAttempt(limits: AttemptLimit[], windowSeconds: number): Promise<AttemptReservation> {
    if (limits.length === 0) return { allowed: true, retryAfterSeconds: 0 };
    const { redis, keys: storeKeys } = this.connection;
    const keys = limits.map((l) => storeKeys.failures(l.key));
    try {
      const [allowed, waitMs] = await this.connection.guard(() =>
        redis.reserveFailureAttempt(keys.length, ...keys, windowSeconds, ...limits.map((l) => l.max)),
      );
      return allowed === 1 ? { allowed: true, retryAfterSeconds: 0 } : { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
    } finally {
      // The next check here reads the counts this failure raised, whenever Redis's report of it comes.
      this.connection.trackedCache?.forget(keys);
    }
  }

  /**
   * Read beside every client authentication, so from the tracked cache while it is usable: a count
   * is kept only below its ceiling (the refusal needs the key's lifetime, read each time), and a
   * failure counted anywhere drops it (reserveAttempt writes the key).
   */
  async checkAttempt(limits: AttemptLimit[]): Promise<AttemptReservation> {
    if (limits.length === 0) return { allowed: true, retryAfterSeconds: 0 };
    const { redis, keys: storeKeys } = this.connection;
    const keys = limits.map((l) => storeKeys.failures(l.key));
    const read = async () => {
      const stored = await this.connection.guard(() => redis.mget(...keys));
      return stored.map((value, i) => {
        const count = Number(value ?? 0);
        return count < limits[i]!.max ? count : undefined;
      });
    };
    const counts = await this.connection.readTracked(keys, read);
    const blocking = keys.filter((_key, i) => counts[i] === undefined);
    if (blocking.length === 0) return { allowed: true, retryAfterSeconds: 0 };
    const waits = await this.connection.guard(() => Promise.all(blocking.map((key) => redis.pttl(key))));
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(Math.max(...waits) / 1000)) };
  }

  async releaseAttempt(keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    const { redis, keys: storeKeys } = this.connection;
    await this.connection.guard(() => redis.releaseFailureAttempt(keys.length, ...keys.map((k) => storeKeys.failures(k))));
  }

  async takeRateLimit(credentialId: string, routeId: string, rule: RateQuota): Promise<RateLimitDecision> {
    return this.connection.guard(() => takeRateLimit(this.connection.redis, rateLimitKey(this.connection.prefix, credentialId, routeId), rule));
  }
}
