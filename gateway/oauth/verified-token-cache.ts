// Remembers tokens whose signature and claims already verified, keyed by the exact token text,
// so a client reusing its token (the normal case) does not pay for signature verification on
// every request. Expiry and the signing key are re-checked on every hit; revocation, client
// deletion and the retirement of the signing key are not cached at all (the store answers those
// per request, given the kid this cache keeps).

interface Entry<T> {
  claims: T;
  kid: string;
  exp: number;
}

export class VerifiedTokenCache<T extends { exp: number }> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(private readonly maxEntries = 10_000) {}

  /** A previously verified token that is still unexpired and signed by a known key: its claims and kid. */
  get(token: string, nowSeconds: number, keyKnown: (kid: string) => boolean): Readonly<Entry<T>> | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    if (entry.exp <= nowSeconds || !keyKnown(entry.kid)) {
      this.entries.delete(token);
      return undefined;
    }
    return entry;
  }

  set(token: string, kid: string, claims: T): void {
    if (this.entries.size >= this.maxEntries) {
      // Maps iterate in insertion order: drop the oldest entry.
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(token, { claims, kid, exp: claims.exp });
  }
}
