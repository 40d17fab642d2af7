// Throttles authentication failures (client secrets at the OAuth endpoints, dashboard sign-ins) so
// credentials cannot be guessed online, without letting an attacker's failures lock out the owner.
// Failures count per network, not per address: an IPv4 address (or IPv4-mapped IPv6 one) alone, an
// IPv6 address by its network of GATEWAY_THROTTLE_IPV6_PREFIX bits (/64 by default), since one IPv6
// host can send from every address of its /64 (gateway/net/throttle-key.ts).
// A failure counts on three keys, each with its own ceiling within one window:
//   - the (credential, network) pair: tight, stops one network guessing one credential;
//   - the network: stops one network spraying many credentials;
//   - the credential: much higher, stops guessing spread over many networks.
// The pair ceiling is thus all one network can spend of a credential's ceiling in a window, and the
// settings keep the credential ceiling at least twice it (by default 10 of 1,000): the owner, from
// their own network, meets only the credential ceiling, and reaching that takes failures from at
// least ceiling / pair ceiling networks (100 by default), never from one, however many addresses it
// has. The credential ceiling stays a hard bound on guesses rather than sparing networks that have
// not failed yet: that would let every further network guess once more, and a single IPv6 site
// holds 65,536 /64s (lower the prefix to count a whole site as one network; SECURITY.md).
// Concurrent attempts never overshoot a ceiling: a failure is counted and decided (401, or 429 once
// a ceiling is reached) in one atomic store step. How the secret check fits in depends on its cost:
//   - 'reserve-first' (a costly check, e.g. scrypt): the attempt is reserved in that step before the
//     check and given back when it succeeds, so no more checks run than the ceiling allows;
//   - 'count-failures' (a cheap check, e.g. an HMAC of a random 256-bit secret): the counters are
//     read beside the check, a success is answered unless a ceiling was already reached, and only a
//     failure is counted. Concurrent requests of the rightful client are never refused for being in
//     flight together, and a success costs one store round trip, not three. What a guesser learns is
//     the same: at most the ceiling's worth of 401s, then 429 whatever the secret.
//     On a Redis Cluster the counters share one slot, so one master holds them all: while it is
//     lost (NodeUnavailableError), a right secret is still answered and a wrong one gets 503,
//     uncounted. Guessing then runs unthrottled but learns nothing a 256-bit secret would give up;
//     'reserve-first' (a password) fails closed instead.
import { hash } from 'node:crypto';
import type { Settings } from '../config/settings.js';
import { GatewayError } from '../errors.js';
import type { Address } from '../net/cidr.js';
import { throttleKeyOf } from '../net/throttle-key.js';
import { NodeUnavailableError } from '../store/node-unavailable-error.js';
import type { AttemptLimit, AttemptReservation, CredentialStore } from '../store/types.js';

export type ThrottleSettings = Pick<
  Settings,
  'throttleMaxFailures' | 'throttleMaxFailuresPerAddress' | 'throttleMaxFailuresPerCredential' | 'throttleWindowSeconds' | 'throttleIpv6Prefix'
>;

/** Who attempts: the client address (undefined when the socket reports none), and the credential it names (none for the admin token). */
export interface AttemptSubject {
  address: Address | undefined;
  credential?: string | undefined;
}

export type ThrottleMode = 'reserve-first' | 'count-failures';

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
    private readonly mode: ThrottleMode,
  ) {}

  /**
   * Runs verify under the throttle: 429 with Retry-After when a key is at its ceiling. A null result
   * (or a throw) is a failure and counts; a result is a success and does not.
   */
  async attempt<T>(subject: AttemptSubject, verify: () => Promise<T | null>): Promise<T | null> {
    const limits = this.limitsFor(subject);
    if (this.mode === 'count-failures') {
      // A check that throws (the store is unavailable) is not the client's failure: not counted.
      const [check, result] = await Promise.all([this.store.checkAttempt(limits).catch(lostNode), verify()]);
      if (check instanceof NodeUnavailableError) {
        if (result !== null) return result;
        throw check;
      }
      this.refuseUnless(check);
      if (result !== null) return result;
      this.refuseUnless(await this.store.reserveAttempt(limits, this.settings.throttleWindowSeconds));
      return null;
    }
    this.refuseUnless(await this.store.reserveAttempt(limits, this.settings.throttleWindowSeconds));
    const result = await verify();
    if (result !== null) await this.store.releaseAttempt(limits.map((l) => l.key));
    return result;
  }

  private refuseUnless({ allowed, retryAfterSeconds }: AttemptReservation): void {
    if (allowed) return;
    throw new GatewayError('too_many_requests', `Too many ${this.failures}; retry in ${retryAfterSeconds} seconds.`, {
      headers: { 'retry-after': String(retryAfterSeconds) },
    });
  }

  private limitsFor({ address, credential }: AttemptSubject): AttemptLimit[] {
    const { throttleMaxFailures, throttleMaxFailuresPerAddress, throttleMaxFailuresPerCredential, throttleIpv6Prefix } = this.settings;
    const network = throttleKeyOf(address, throttleIpv6Prefix);
    const limits: AttemptLimit[] = [{ key: `${this.namespace}:network:${network}`, max: throttleMaxFailuresPerAddress }];
    if (credential === undefined) return limits;
    // The credential is attacker-chosen text (up to 1024 characters): a digest bounds the key.
    const id = hash('sha256', credential, 'base64url');
    limits.push(
      { key: `${this.namespace}:pair:${id}:${network}`, max: throttleMaxFailures },
      { key: `${this.namespace}:credential:${id}`, max: throttleMaxFailuresPerCredential },
    );
    return limits;
  }
}

/** The counters' one Cluster master is lost: the error itself, to decide by; any other failure throws. */
function lostNode(error: unknown): NodeUnavailableError {
  if (error instanceof NodeUnavailableError) return error;
  throw error;
}
