// Failure counters and rate limits in the embedded store: short-lived, never in the snapshot.
import { gcraStep, spacingOf, type RateLimitDecision, type RateQuota } from '../gcra.js';
import type { AttemptLimit, AttemptReservation, CounterStore } from '../types.js';
import type { MemoryContext } from './context.js';
import { ExpiringMap } from './expiring-map.js';

export class MemoryCounterStore implements CounterStore {
  private readonly failures: ExpiringMap;
  /** Rate-limit TATs (epoch microseconds) by credential and route, each kept until it has passed. */
  private readonly rateLimits: ExpiringMap;

  constructor(private readonly context: MemoryContext) {
    this.failures = new ExpiringMap(context.now);
    this.rateLimits = new ExpiringMap(context.now);
  }

  /** Drops the counters that have lapsed. */
  sweep(): void {
    this.failures.sweep();
    this.rateLimits.sweep();
  }

  async checkAttempt(limits: AttemptLimit[]): Promise<AttemptReservation> {
    return this.blocking(limits, this.context.now()) ?? { allowed: true, retryAfterSeconds: 0 };
  }

  /** The refusal when a key is at its max, else undefined. */
  private blocking(limits: AttemptLimit[], now: number): AttemptReservation | undefined {
    let blockedUntil: number | undefined;
    for (const { key, max } of limits) {
      if (Number(this.failures.get(key, now) ?? 0) >= max) blockedUntil = Math.max(blockedUntil ?? now, this.failures.expiresAt(key) ?? now);
    }
    return blockedUntil === undefined ? undefined : { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((blockedUntil - now) / 1000)) };
  }

  async reserveAttempt(limits: AttemptLimit[], windowSeconds: number): Promise<AttemptReservation> {
    // No await from check to count: on one thread, no other attempt can come in between.
    const now = this.context.now();
    const blocked = this.blocking(limits, now);
    if (blocked) return blocked;
    for (const { key } of limits) {
      const expiresAt = this.failures.expiresAt(key) ?? now + windowSeconds * 1000;
      this.failures.set(key, String(Number(this.failures.get(key) ?? 0) + 1), expiresAt - this.context.now());
    }
    return { allowed: true, retryAfterSeconds: 0 };
  }

  async releaseAttempt(keys: string[]): Promise<void> {
    for (const key of keys) {
      const count = Number(this.failures.get(key) ?? 0);
      const expiresAt = this.failures.expiresAt(key);
      if (count > 1 && expiresAt !== undefined) this.failures.set(key, String(count - 1), expiresAt - this.context.now());
      else this.failures.delete(key);
    }
  }

  async takeRateLimit(credentialId: string, routeId: string, rule: RateQuota): Promise<RateLimitDecision> {
    // No await from read to write: on one thread, no other request can come in between.
    const key = `${credentialId}\n${routeId}`;
    const nowUs = this.context.now() * 1000;
    const stored = this.rateLimits.get(key);
    const { decision, newTatUs } = gcraStep(stored === undefined ? undefined : Number(stored), nowUs, spacingOf(rule));
    if (newTatUs !== undefined) this.rateLimits.set(key, String(newTatUs), Math.ceil((newTatUs - nowUs) / 1000));
    return decision;
  }
}
