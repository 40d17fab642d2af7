// Short-lived state of the embedded store (failure counts, rate-limit TATs, sessions), measured on
// the store's clock.

interface Expiring {
  value: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

/** A map whose entries lapse; expired entries are dropped when read or swept. */
export class ExpiringMap {
  private readonly entries = new Map<string, Expiring>();

  constructor(private readonly now: () => number) {}

  get(key: string, now = this.now()): string | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: string, ttlMs: number): void {
    this.entries.set(key, { value, expiresAt: this.now() + ttlMs });
  }

  expiresAt(key: string): number | undefined {
    return this.get(key) === undefined ? undefined : this.entries.get(key)!.expiresAt;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  sweep(now = this.now()): void {
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
  }
}
