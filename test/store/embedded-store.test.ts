// The store contract against the embedded single-process store (in memory, and with a snapshot file).
// Its clock is one the contract moves: the expiry cases take no wall-clock time.
import t, { type Test } from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { EmbeddedCredentialStore } from '../../gateway/store/embedded-store.js';
import { credentialStoreContract } from './contract.js';

/**
 * Real time plus what the contract let pass. It follows real time because the contract compares
 * some of the store's times with Date.now() (a secret's grace period, a revocation's end).
 */
class MovableClock {
  private passedMs = 0;
  readonly now = (): number => Date.now() + this.passedMs;

  async pass(ms: number): Promise<void> {
    this.passedMs += ms;
    // The store calls back synchronously; a turn of the event loop runs anything it deferred.
    await nextTurn();
  }
}

/** The contract with a fresh clock for each fresh store; time passes for the latest one. */
function contractOnMovableClock(t: Test, open: (t: Test, now: () => number) => EmbeddedCredentialStore): void {
  let clock = new MovableClock();
  credentialStoreContract(
    t,
    async (t) => {
      clock = new MovableClock();
      return open(t, clock.now);
    },
    { pass: (ms) => clock.pass(ms) },
  );
}

t.test('in memory', async (t) => {
  contractOnMovableClock(t, (t, now) => {
    const store = new EmbeddedCredentialStore(undefined, { now });
    t.teardown(() => store.close());
    return store;
  });
});

t.test('with a snapshot file', async (t) => {
  contractOnMovableClock(t, (t, now) => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-store-'));
    const store = new EmbeddedCredentialStore(join(dir, 'store.json'), { now });
    t.teardown(async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    });
    return store;
  });
});
