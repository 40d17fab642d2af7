// The service accounts this instance verified signatures for, with the version of the record each
// was read at. It saves the signed route its read round trip, never a check: the nonce is consumed
// only while the stored record is still that version (the store compares in the same atomic step),
// so a deleted or changed account is refused or checked again from the store at once, on every
// instance. Bounded in count (the least recently used account goes first); an entry is added only
// once a signature verified with it, and replaced when the store gave a newer version.
import { boundedCache, type BoundedCache } from '../../../cache/bounded-cache.js';
import type { ServiceAccountRecord } from '../../../store/types.js';

export interface CachedAccount {
  readonly account: ServiceAccountRecord;
  readonly version: string;
}

export class AccountCache {
  private readonly entries: BoundedCache<string, CachedAccount>;

  constructor(maxEntries: number) {
    this.entries = boundedCache(maxEntries);
  }

  get(accessId: string): CachedAccount | undefined {
    return this.entries.get(accessId);
  }

  /** Adds (or replaces) an entry; when full, the least recently used goes. */
  set(accessId: string, entry: CachedAccount): void {
    this.entries.set(accessId, entry);
  }

  delete(accessId: string): void {
    this.entries.delete(accessId);
  }

  get size(): number {
    return this.entries.size;
  }
}
