// Waiting for something asynchronous (a pub/sub message) in a bounded loop instead of a fixed sleep.
import { setTimeout as sleep } from 'node:timers/promises';

/** Polls every 10 ms until the condition holds; resolves with the milliseconds it took, rejects after timeoutMs. */
export async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 1000): Promise<number> {
  const start = Date.now();
  while (!(await condition())) {
    if (Date.now() - start > timeoutMs) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await sleep(10);
  }
  return Date.now() - start;
}
