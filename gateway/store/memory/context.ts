// What every adapter of the embedded store shares: its clock, and the write of its snapshot.

export interface MemoryContext {
  /** Epoch milliseconds; every expiry the store keeps is measured on it (tests pass a clock they move). */
  readonly now: () => number;
  /** Writes every durable record to the snapshot file (nothing without one); called after each durable change. */
  readonly persist: () => void;
}
