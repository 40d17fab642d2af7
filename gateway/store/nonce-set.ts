// The embedded store's used nonces, compact: a signed request's nonce must be remembered for the
// whole signature window (about five minutes), so a store holding each as a string key with an
// expiry object grows by hundreds of bytes per signed request, hundreds of MB over a window at a
// few thousand signed requests a second. Here each is a 52-bit hash of (Access ID, nonce), a
// number in a set; the sets are generations by expiry, and a generation is dropped whole once
// every nonce in it has expired (BENCHMARKS.md has the measured bytes per nonce).
// Two different nonces with the same hash make the second look used: its request is refused as a
// replay (fail closed, never a replay let through). The hash is SHA-256 under a random key per
// process, so hashes meet only by chance (with a million nonces held, a fresh one meets a false
// match about once in four billion) and nonces cannot be chosen beforehand to collide. A faster
// non-cryptographic pair (two seeded FNV-1a) was used first: 50,000 random nonces met once in CI,
// where 52 independent bits meet about once in three million such runs.
import { hash as cryptoHash, randomBytes } from 'node:crypto';

/** Generations per nonce lifetime: a nonce is forgotten at most one generation late, never early. */
const GENERATIONS_PER_TTL = 8;

export class NonceSet {
  /** Generation index (end of its slice of expiry times, in ms / slice) to the hashes expiring in it. */
  private readonly generations = new Map<number, Set<number>>();
  private readonly key = randomBytes(16).toString('base64');

  constructor(private readonly now: () => number = Date.now) {}

  /** Whether this nonce was recorded for this Access ID and has not expired. */
  has(accessId: string, nonce: string): boolean {
    return this.holds(this.hash(accessId, nonce), this.now());
  }

  /** Records the nonce for `ttlMs` unless it is held already; true when it was recorded. */
  addIfAbsent(accessId: string, nonce: string, ttlMs: number): boolean {
    const now = this.now();
    const hash = this.hash(accessId, nonce);
    if (this.holds(hash, now)) return false;
    const slice = Math.max(1, Math.ceil(ttlMs / GENERATIONS_PER_TTL));
    // Rounded up: the generation ends at or after the nonce's own expiry.
    const generation = Math.ceil((now + ttlMs) / slice) * slice;
    let hashes = this.generations.get(generation);
    if (hashes === undefined) {
      hashes = new Set();
      this.generations.set(generation, hashes);
    }
    hashes.add(hash);
    return true;
  }

  /** Drops the generations whose nonces have all expired. */
  sweep(now = this.now()): void {
    for (const generation of this.generations.keys()) if (generation <= now) this.generations.delete(generation);
  }

  /** Nonces held, expired ones not yet swept included (for tests). */
  get size(): number {
    let size = 0;
    for (const hashes of this.generations.values()) size += hashes.size;
    return size;
  }

  private holds(hash: number, now: number): boolean {
    for (const [generation, hashes] of this.generations) {
      if (generation <= now) {
        this.generations.delete(generation);
        continue;
      }
      if (hashes.has(hash)) return true;
    }
    return false;
  }

  /** The first 52 bits of SHA-256(key, Access ID's length, Access ID, nonce): exact in a double. */
  private hash(accessId: string, nonce: string): number {
    const digest = cryptoHash('sha256', `${this.key}${accessId.length}:${accessId}${nonce}`, 'buffer');
    return digest.readUIntBE(0, 6) * 16 + (digest[6]! >>> 4);
  }
}
