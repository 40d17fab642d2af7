// Counters that refuse past a limit: failure throttling (attempts per window) and rate limits
// (gcra.ts, only on routes with one).
import type { RateLimitDecision, RateQuota } from '../gcra.js';

/** A failure counter and the count at which it refuses further attempts. */
export interface AttemptLimit {
  key: string;
  max: number;
}

export interface AttemptReservation {
  allowed: boolean;
  /** When refused: seconds until the attempt could be allowed again (at least 1); 0 when allowed. */
  retryAfterSeconds: number;
}

export interface CounterStore {
  /**
   * One atomic step: when every key's count is under its max, adds one to each (a key's window
   * starts at its first attempt and is not extended) and allows; otherwise changes nothing and
   * refuses until the last blocking window ends. Concurrent callers never overshoot a max.
   */
  reserveAttempt(limits: AttemptLimit[], windowSeconds: number): Promise<AttemptReservation>;
  /** Gives back a reservation (one from each key that still exists): a success is not a failure. */
  releaseAttempt(keys: string[]): Promise<void>;
  /** Reads only: refuses (until the last blocking window ends) when a key's count is at its max. */
  checkAttempt(limits: AttemptLimit[]): Promise<AttemptReservation>;
  /** One atomic round trip: counts one request of a credential on a route against the rule, or refuses it and writes nothing. */
  takeRateLimit(credentialId: string, routeId: string, rule: RateQuota): Promise<RateLimitDecision>;
}
