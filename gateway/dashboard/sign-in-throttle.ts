// Slows down guessing of the admin token and of dashboard passwords: after too many failures from
// one address (or against one username) within the window, sign-in answers 429 until it ends.
import type { Settings } from '../config/settings.js';
import { GatewayError } from '../errors.js';
import type { CredentialStore } from '../store/types.js';

export class SignInThrottle {
  constructor(private readonly store: CredentialStore, private readonly settings: Pick<Settings, 'throttleMaxFailures' | 'throttleWindowSeconds'>) {}

  private keys(address: string, username: string | undefined): string[] {
    const keys = [`dashboard-sign-in:ip:${address}`];
    if (username !== undefined) keys.push(`dashboard-sign-in:user:${username}`);
    return keys;
  }

  async check(address: string, username: string | undefined): Promise<void> {
    const keys = this.keys(address, username);
    const counts = await this.store.failureCounts(keys);
    const blocked = keys.find((_, i) => counts[i]! >= this.settings.throttleMaxFailures);
    if (blocked === undefined) return;
    const retryAfter = Math.max(1, await this.store.failureWindowRemaining(blocked));
    throw new GatewayError('too_many_requests', `Too many failed sign-ins; retry in ${retryAfter} seconds.`, { headers: { 'retry-after': String(retryAfter) } });
  }

  async recordFailure(address: string, username: string | undefined): Promise<void> {
    await this.store.addFailure(this.keys(address, username), this.settings.throttleWindowSeconds);
  }
}
