// Shared fast-check parameters for the property tests: a bounded number of runs and a time limit
// per property, so each file stays at a few seconds. A failure prints its seed and path; set
// FC_SEED (and FC_PATH) to replay it.
import fc from 'fast-check';
import type { Test } from 'tap';

export function runs<T>(numRuns: number): fc.Parameters<T> {
  const seed = process.env.FC_SEED === undefined ? {} : { seed: Number(process.env.FC_SEED), ...(process.env.FC_PATH ? { path: process.env.FC_PATH } : {}) };
  return { numRuns, interruptAfterTimeLimit: 20_000, markInterruptAsFailure: false, ...seed };
}

/** Runs a synchronous property and records it as one passing assertion. */
export function holds<T>(t: Test, property: fc.IProperty<T>, numRuns: number): void {
  fc.assert(property, runs<T>(numRuns));
  t.pass(`held for up to ${numRuns} cases`);
}

/** Runs an asynchronous property and records it as one passing assertion. */
export async function holdsAsync<T>(t: Test, property: fc.IAsyncProperty<T>, numRuns: number): Promise<void> {
  await fc.assert(property, runs<T>(numRuns));
  t.pass(`held for up to ${numRuns} cases`);
}

/** 32-byte candidate Ed25519 keys: random ones, and ones close to the degenerate encodings, so refusals are exercised. */
export const ed25519KeyCandidates = fc.oneof(
  fc.uint8Array({ minLength: 32, maxLength: 32 }),
  fc
    .tuple(fc.constantFrom(0x00, 0x01, 0xec, 0xed, 0xee, 0xff), fc.constantFrom(0x00, 0xff), fc.constantFrom(0x00, 0x7f, 0x80, 0xff))
    .map(([first, middle, last]) => {
      const bytes = new Uint8Array(32).fill(middle);
      bytes[0] = first;
      bytes[31] = last;
      return bytes;
    }),
);
