// Throttles repeated authentication failures (client secrets at the token endpoint, dashboard
// sign-ins) so credentials cannot be guessed online. The caller names what a failure counts
// against (a client id, an address, a username); once any of those keys has failed too often in
// the window, the next attempt gets 429 with Retry-After. Successes are never slowed down.
import { GatewayError } from '../errors.js';
import type { CredentialStore } from '../store/types.js';

export interface ThrottleSettings {
  throttleMaxFailures: number;
  throttleWindowSeconds: number;
}

export class FailureThrottle {
  /** @param failures what the 429 message calls the failures, e.g. "failed sign-ins". */
  constructor(
    private readonly store: CredentialStore,
    private readonly settings: ThrottleSettings,
    private readonly failures: string,
  ) {}

  /** Throws 429 with Retry-After when any of the keys has failed too often. */
  async check(keys: readonly string[]): Promise<void> {
    const counts = await this.store.failureCounts([...keys]);
    const blocked = keys.find((_, i) => counts[i]! >= this.settings.throttleMaxFailures);
    if (blocked === undefined) return;
    const retryAfter = Math.max(1, await this.store.failureWindowRemaining(blocked));
    throw new GatewayError('too_many_requests', `Too many ${this.failures}; retry in ${retryAfter} seconds.`, { headers: { 'retry-after': String(retryAfter) } });
  }

  async recordFailure(keys: readonly string[]): Promise<void> {
    await this.store.addFailure([...keys], this.settings.throttleWindowSeconds);
  }
}
