// The rate_limit of a policy route: `rate_limit: { requests: 100, per: 1m }`, counted per
// credential. `per` is whole seconds (60) or a number with a unit (30s, 1m, 2h, 1d); a route sets
// `rate_limit: none` to opt out of its file's default. Anything else is refused at load: the
// loader adds the file and route to the message, as it does for path templates.

export interface RateLimitRule {
  /** Requests a credential may send in one window (also the largest burst). */
  readonly requests: number;
  /** The window, in whole seconds. */
  readonly perSeconds: number;
}

export const MAX_REQUESTS = 1_000_000;
export const MAX_WINDOW_SECONDS = 86_400;
// The store counts in whole microseconds per request (gateway/store/gcra.ts): at most 10,000 a
// second keeps that rounding under 0.5 % of the rate.
const MAX_PER_SECOND = 10_000;
const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };
/** A window with a unit: 30s, 1m, 2h, 1d (the policy schema declares the same form). */
export const WINDOW_WITH_UNIT = '^([1-9][0-9]{0,5})(s|m|h|d)$';
const WINDOW_PATTERN = new RegExp(WINDOW_WITH_UNIT);
const KEYS = new Set(['requests', 'per']);

/** A scalar as written; lists and mappings (possibly circular YAML aliases) only by kind. */
function shown(value: unknown): string {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || value === null) return JSON.stringify(value);
  return Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'a mapping' : typeof value;
}

function windowSeconds(value: unknown): number {
  let seconds: number | undefined;
  if (typeof value === 'number') seconds = value;
  else if (typeof value === 'string') {
    const match = WINDOW_PATTERN.exec(value);
    if (match) seconds = Number(match[1]) * UNIT_SECONDS[match[2]!]!;
  }
  if (seconds === undefined || !Number.isSafeInteger(seconds) || seconds < 1 || seconds > MAX_WINDOW_SECONDS) {
    throw new Error(`rate_limit.per must be whole seconds (60) or a number with a unit s, m, h or d (30s, 1m, 1h), from 1s to 1d; got ${shown(value)}`);
  }
  return seconds;
}

/** The rule a rate_limit value declares; null for none (absent or `none`). Throws an Error saying what is wrong. */
export function parseRateLimit(value: unknown): RateLimitRule | null {
  if (value === undefined || value === 'none') return null;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`rate_limit must be a mapping such as { requests: 100, per: 1m }, or none`);
  }
  for (const key of Object.keys(value)) if (!KEYS.has(key)) throw new Error(`rate_limit has an unknown field ${JSON.stringify(key)}`);
  const { requests, per } = value as { requests?: unknown; per?: unknown };
  if (typeof requests !== 'number' || !Number.isSafeInteger(requests) || requests < 1 || requests > MAX_REQUESTS) {
    throw new Error(`rate_limit.requests must be a whole number from 1 to ${MAX_REQUESTS}`);
  }
  const perSeconds = windowSeconds(per);
  if (requests / perSeconds > MAX_PER_SECOND) {
    throw new Error(`rate_limit allows at most ${MAX_PER_SECOND} requests a second; ${requests} per ${perSeconds}s is more`);
  }
  return Object.freeze({ requests, perSeconds });
}
