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
