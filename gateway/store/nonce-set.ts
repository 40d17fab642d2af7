// The embedded store's used nonces, compact: a signed request's nonce must be remembered for the
// whole signature window (about five minutes), so a store holding each as a string key with an
// expiry object grows by hundreds of bytes per signed request, hundreds of MB over a window at a
// few thousand signed requests a second. Here each is a 52-bit hash of (Access ID, nonce), a
// number in a set; the sets are generations by expiry, and a generation is dropped whole once
// every nonce in it has expired (BENCHMARKS.md has the measured bytes per nonce).
// Two different nonces with the same hash make the second look used: its request is refused as a
// replay (fail closed, never a replay let through). With a million nonces held, a fresh one meets
// a false match about once in four billion; the hash is seeded per process, so nonces cannot be
// chosen beforehand to collide.
import { randomInt } from 'node:crypto';

/** Generations per nonce lifetime: a nonce is forgotten at most one generation late, never early. */
const GENERATIONS_PER_TTL = 8;
const SEED_LIMIT = 2 ** 32;

export class NonceSet {
  /** Generation index (end of its slice of expiry times, in ms / slice) to the hashes expiring in it. */
  private readonly generations = new Map<number, Set<number>>();
  private readonly seeds = [randomInt(SEED_LIMIT), randomInt(SEED_LIMIT)] as const;

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

  /** 52 bits from two seeded 32-bit hashes (FNV-1a over the UTF-16 units, then murmur3's finalizer). */
  private hash(accessId: string, nonce: string): number {
    const high = mix32(this.seeds[0], accessId, nonce) >>> 12;
    const low = mix32(this.seeds[1], accessId, nonce);
    return high * 2 ** 32 + low;
  }
}

const FNV_PRIME = 0x01000193;
/** Between the two parts, so that ("ab", "c") and ("a", "bc") differ. */
const SEPARATOR = 0x3a;

function fnv1a(hash: number, text: string): number {
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), FNV_PRIME);
  return hash;
}

function mix32(seed: number, first: string, second: string): number {
  let hash = fnv1a(seed, first);
  hash = Math.imul(hash ^ SEPARATOR, FNV_PRIME);
  hash = fnv1a(hash, second);
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}
