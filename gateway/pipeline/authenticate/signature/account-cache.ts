// The service accounts this instance verified signatures for, with the version of the record each
// was read at. It saves the signed route its read round trip, never a check: the nonce is consumed
// only while the stored record is still that version (the store compares in the same atomic step),
// so a deleted or changed account is refused or checked again from the store at once, on every
// instance. Bounded in count; an entry is added only once a signature verified with it, and
// replaced when the store gave a newer version.
import type { ServiceAccountRecord } from '../../../store/types.js';

export interface CachedAccount {
  readonly account: ServiceAccountRecord;
  readonly version: string;
}

export class AccountCache {
  private readonly entries = new Map<string, CachedAccount>();

  constructor(private readonly maxEntries: number) {}

  get(accessId: string): CachedAccount | undefined {
    return this.entries.get(accessId);
  }

  /** Adds (or replaces) an entry; when full, the oldest goes (Map keeps insertion order): a request costs no write here. */
  set(accessId: string, entry: CachedAccount): void {
    this.entries.delete(accessId);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(accessId, entry);
  }

  delete(accessId: string): void {
    this.entries.delete(accessId);
  }

  get size(): number {
    return this.entries.size;
  }
}
