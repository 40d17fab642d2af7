// Throttles repeated client-authentication failures per client id and per source address, so
// secrets cannot be guessed online. Successful requests are never slowed down.
import { GatewayError } from '../errors.js';
import type { CredentialStore } from '../store/types.js';

export interface ThrottleSettings {
  throttleMaxFailures: number;
  throttleWindowSeconds: number;
}

export class FailureThrottle {
  constructor(private readonly store: CredentialStore, private readonly settings: ThrottleSettings) {}

  private keys(clientId: string, address: string): string[] {
    return [`client:${clientId}`, `ip:${address}`];
  }

  /** Throws 429 with Retry-After when either the client id or the address has failed too often. */
  async check(clientId: string, address: string): Promise<void> {
    const keys = this.keys(clientId, address);
    const counts = await this.store.failureCounts(keys);
    const blocked = keys.find((_, i) => counts[i]! >= this.settings.throttleMaxFailures);
    if (blocked === undefined) return;
    const retryAfter = Math.max(1, await this.store.failureWindowRemaining(blocked));
    throw new GatewayError('too_many_requests', `Too many failed attempts; retry in ${retryAfter} seconds.`, { headers: { 'retry-after': String(retryAfter) } });
  }

  async recordFailure(clientId: string, address: string): Promise<void> {
    await this.store.addFailure(this.keys(clientId, address), this.settings.throttleWindowSeconds);
  }
}
