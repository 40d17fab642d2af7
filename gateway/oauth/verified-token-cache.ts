// Remembers tokens whose signature and claims already verified, keyed by the exact token text,
// so a client reusing its token (the normal case) does not pay for signature verification on
// every request. An entry lapses at the token's exp, and the signing key is re-checked on every
// hit; revocation, client deletion and the retirement of the signing key are not cached at all
// (the store answers those per request, given the kid this cache keeps).
import { boundedCache, type BoundedCache } from '../cache/bounded-cache.js';

interface Entry<T> {
  claims: T;
  kid: string;
  exp: number;
}

export class VerifiedTokenCache<T extends { exp: number }> {
  private readonly entries: BoundedCache<string, Entry<T>>;

  /** `now`: epoch milliseconds, the clock exp is compared with (tests move it). */
  constructor(
    maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {
    this.entries = boundedCache(maxEntries, { now });
  }

  /** A previously verified token that is still unexpired and signed by a known key: its claims and kid. */
  get(token: string, keyKnown: (kid: string) => boolean): Readonly<Entry<T>> | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    if (!keyKnown(entry.kid)) {
      this.entries.delete(token);
      return undefined;
    }
    return entry;
  }

  set(token: string, kid: string, claims: T): void {
    const now = this.now();
    // The cache drops an entry once its age exceeds the TTL: this one is unreadable from the first
    // whole second at or after exp. One (nearly) expired already, accepted within the clock
    // tolerance, is not kept; neither is an exp too far off to count in milliseconds.
    const ttl = Math.ceil(claims.exp) * 1000 - now - 1;
    if (!Number.isSafeInteger(ttl) || ttl < 1) return;
    this.entries.set(token, { claims, kid, exp: claims.exp }, { ttl, start: now });
  }
}
