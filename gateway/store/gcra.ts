// Rate limiting with GCRA (the generic cell rate algorithm): one number per credential and route,
// the theoretical arrival time (TAT) of its next request. A rule of N requests per W seconds lets a
// request in every W/N seconds, with a burst of up to N; a request is allowed when, counting it,
// the TAT stays within one window of now. Nothing else is stored, so a check is one read and at most
// one write of one key. The Redis script (redis-rate-limit.ts) and the embedded store both use
// these numbers: whole microseconds, so that both count exactly alike.

/** What the store counts against: N requests per W seconds (a policy's rate_limit has this shape). */
export interface RateQuota {
  /** Requests in one window (also the largest burst). */
  readonly requests: number;
  /** The window, in whole seconds. */
  readonly perSeconds: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  /** Requests that could be sent right now after this one (0 when refused). */
  remaining: number;
  /** When refused: seconds until a request is allowed again (at least 1, rounded up); 0 when allowed. */
  retryAfterSeconds: number;
  /** Seconds until the whole quota is available again, rounded up. */
  resetSeconds: number;
}

export interface GcraSpacing {
  /** Microseconds between requests at the sustained rate (whole, at least 1). */
  intervalUs: number;
  /** intervalUs × requests: how far ahead of now the TAT may run (the window, give or take the rounding). */
  spanUs: number;
}

export function spacingOf(rule: RateQuota): GcraSpacing {
  const intervalUs = Math.max(1, Math.round((rule.perSeconds * 1_000_000) / rule.requests));
  return { intervalUs, spanUs: intervalUs * rule.requests };
}

/** What one request does to a stored TAT (undefined: none stored or lapsed). newTatUs is set only when allowed. */
export function gcraStep(
  storedTatUs: number | undefined,
  nowUs: number,
  { intervalUs, spanUs }: GcraSpacing,
): { decision: RateLimitDecision; newTatUs?: number } {
  const tat = Math.max(storedTatUs ?? nowUs, nowUs);
  const newTat = tat + intervalUs;
  if (newTat - nowUs > spanUs) return { decision: decisionOf(false, 0, newTat - spanUs - nowUs, tat - nowUs) };
  return { decision: decisionOf(true, Math.floor((nowUs + spanUs - newTat) / intervalUs), 0, newTat - nowUs), newTatUs: newTat };
}

export function decisionOf(allowed: boolean, remaining: number, retryAfterUs: number, resetUs: number): RateLimitDecision {
  return {
    allowed,
    remaining,
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil(retryAfterUs / 1_000_000)),
    resetSeconds: Math.max(0, Math.ceil(resetUs / 1_000_000)),
  };
}
