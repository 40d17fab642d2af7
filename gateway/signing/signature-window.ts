// How long a signed request stays acceptable: its created time within the configured window, or up
// to the clock skew ahead. A nonce is remembered exactly that long, and a failover fence waits out
// the skew (gateway/store/failover-fence.ts).

/** How far in the future `created` may be: clocks of clients and gateway differ a little. */
export const CLOCK_SKEW_SECONDS = 10;

/** How long a nonce is remembered: as long as a signature carrying it can be accepted. */
export function nonceTtlSeconds(windowSeconds: number): number {
  return windowSeconds + CLOCK_SKEW_SECONDS;
}
