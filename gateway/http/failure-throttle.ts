// Throttles authentication failures (client secrets at the OAuth endpoints, dashboard sign-ins) so
// credentials cannot be guessed online, without letting an attacker's failures lock out the owner.
// A failure counts on three keys, each with its own ceiling within one window:
//   - the (credential, address) pair: tight, stops one address guessing one credential;
//   - the address: stops one address spraying many credentials;
//   - the credential: much higher, stops guessing spread over many addresses.
// The owner, from their own address, meets only the credential ceiling, and reaching that costs an
// attacker that many failures spread over many addresses.
// Each attempt is reserved in one atomic store step before the secret is checked (so concurrent
// attempts cannot all pass one check) and given back when it succeeds: only failures count.
import { createHash } from 'node:crypto';
import type { Settings } from '../config/settings.js';
import { GatewayError } from '../errors.js';
import type { AttemptLimit, CredentialStore } from '../store/types.js';

export type ThrottleSettings = Pick<Settings, 'throttleMaxFailures' | 'throttleMaxFailuresPerAddress' | 'throttleMaxFailuresPerCredential' | 'throttleWindowSeconds'>;

/** Who attempts: the client address, and the credential it names (none for the admin token). */
export interface AttemptSubject {
  address: string;
  credential?: string | undefined;
}

export class FailureThrottle {
  /**
   * @param namespace keeps each sign-in's counters apart, e.g. "oauth" or "dashboard-sign-in".
   * @param failures what the 429 message calls the failures, e.g. "failed sign-ins".
   */
  constructor(
    private readonly store: CredentialStore,
    private readonly settings: ThrottleSettings,
    private readonly namespace: string,
    private readonly failures: string,
  ) {}

  /**
   * Runs verify under the throttle: 429 with Retry-After when a key is at its ceiling; otherwise
   * the attempt is counted first and given back if verify returns a result. A null result (or a
   * throw) stays counted as a failure.
   */
  async attempt<T>(subject: AttemptSubject, verify: () => Promise<T | null>): Promise<T | null> {
    const limits = this.limitsFor(subject);
    const { allowed, retryAfterSeconds } = await this.store.reserveAttempt(limits, this.settings.throttleWindowSeconds);
    if (!allowed) {
      throw new GatewayError('too_many_requests', `Too many ${this.failures}; retry in ${retryAfterSeconds} seconds.`, {
        headers: { 'retry-after': String(retryAfterSeconds) },
      });
    }
    const result = await verify();
    if (result !== null) await this.store.releaseAttempt(limits.map((l) => l.key));
    return result;
  }

  private limitsFor({ address, credential }: AttemptSubject): AttemptLimit[] {
    const { throttleMaxFailures, throttleMaxFailuresPerAddress, throttleMaxFailuresPerCredential } = this.settings;
    const limits: AttemptLimit[] = [{ key: `${this.namespace}:address:${address}`, max: throttleMaxFailuresPerAddress }];
    if (credential === undefined) return limits;
    // The credential is attacker-chosen text (up to 1024 characters): a digest bounds the key.
    const id = createHash('sha256').update(credential, 'utf8').digest('base64url');
    limits.push(
      { key: `${this.namespace}:pair:${id}:${address}`, max: throttleMaxFailures },
      { key: `${this.namespace}:credential:${id}`, max: throttleMaxFailuresPerCredential },
    );
    return limits;
  }
}
