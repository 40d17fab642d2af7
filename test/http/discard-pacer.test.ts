// The pace of discarded bytes: a burst at once, then the rate, with debt repaid before anyone
// reads again; examples on a hand-moved clock, a property over any reader that obeys it, and the
// wait on real timers.
import fc from 'fast-check';
import t from 'tap';
import { DiscardPacer } from '../../gateway/http/discard-pacer.js';

const KIB = 1024;

function clocked(bytesPerSecond: number, burstBytes: number) {
  let nowMs = 0;
  const pacer = new DiscardPacer(bytesPerSecond, burstBytes, () => nowMs);
  return { pacer, advance: (ms: number) => (nowMs += ms) };
}

t.test('the burst is read at once; past it a reader pauses until the rate has repaid the debt', async (t) => {
  const { pacer, advance } = clocked(100 * KIB, 64 * KIB);
  t.equal(pacer.available, true, 'a full budget to start with');
  t.equal(pacer.take(32 * KIB), true, 'within the burst');
  t.equal(pacer.take(48 * KIB), false, 'the chunk that spends the burst is counted, and says pause');
  t.equal(pacer.available, false, 'in debt: 16 KiB');
  advance(150);
  t.equal(pacer.available, false, '150 ms repay 15 KiB of the 16');
  advance(20);
  t.equal(pacer.available, true, '170 ms repay it');
  advance(60_000);
  t.equal(pacer.take(64 * KIB), false, 'a long pause refills no more than the burst');
});

t.test('a pacer needs a positive rate and burst', async (t) => {
  t.throws(() => new DiscardPacer(0, 1), RangeError);
  t.throws(() => new DiscardPacer(1, 0), RangeError);
  t.throws(() => new DiscardPacer(Number.NaN, 1), RangeError);
});

t.test('property: a reader that pauses when told discards at most burst + rate × time + one chunk', async (t) => {
  const step = fc.record({ afterMs: fc.integer({ min: 0, max: 300 }), chunk: fc.integer({ min: 1, max: 64 * KIB }) });
  fc.assert(
    fc.property(
      fc.integer({ min: 1 * KIB, max: 8 * 1024 * KIB }),
      fc.integer({ min: 1 * KIB, max: 4 * 1024 * KIB }),
      fc.array(step, { minLength: 1, maxLength: 200 }),
      (rate, burst, steps) => {
        const { pacer, advance } = clocked(rate, burst);
        let discarded = 0;
        let paused = false;
        for (const { afterMs, chunk } of steps) {
          const elapsedMs = advance(afterMs);
          if (paused && !pacer.available) continue;
          paused = !pacer.take(chunk);
          discarded += chunk;
          if (discarded > burst + (rate * elapsedMs) / 1000 + 64 * KIB) return false;
        }
        return true;
      },
    ),
    { numRuns: 300 },
  );
  t.pass('held over 300 random readers');
});

t.test('a waiter is called once the debt is repaid, and a cancelled one is not', async (t) => {
  const pacer = new DiscardPacer(1024 * KIB, 16 * KIB);
  t.equal(pacer.take(64 * KIB), false, '48 KiB in debt: about 47 ms at 1 MiB/s');
  const started = performance.now();
  let cancelledCalled = false;
  const cancel = pacer.whenAvailable(() => (cancelledCalled = true));
  cancel();
  // The pacer's timer does not keep a process alive (the lingering sockets do): this test's does.
  const keepAlive = setTimeout(() => {}, 5000);
  await new Promise<void>((resolve) => pacer.whenAvailable(resolve));
  clearTimeout(keepAlive);
  const waitedMs = performance.now() - started;
  t.ok(waitedMs >= 40, `waited ${waitedMs.toFixed(0)} ms for the debt`);
  t.equal(pacer.available, true, 'the budget is positive when the waiter runs');
  t.equal(cancelledCalled, false, 'the cancelled waiter was not called');
});

t.test('property: readers that read only under a reservation discard at most burst + rate × time + one read, however many', async (t) => {
  const READ = 64 * KIB;
  const step = fc.record({ reader: fc.nat(), afterMs: fc.integer({ min: 0, max: 50 }), chunk: fc.integer({ min: 1, max: READ }), closes: fc.boolean() });
  fc.assert(
    fc.property(
      fc.integer({ min: 1 * KIB, max: 8 * 1024 * KIB }),
      fc.integer({ min: 1 * KIB, max: 4 * 1024 * KIB }),
      fc.integer({ min: 1, max: 200 }),
      fc.array(step, { minLength: 1, maxLength: 300 }),
      (rate, burst, readers, steps) => {
        const { pacer, advance } = clocked(rate, burst);
        const reserved = new Array<number>(readers).fill(0);
        let discarded = 0;
        for (const { reader, afterMs, chunk, closes } of steps) {
          const elapsedMs = advance(afterMs);
          const i = reader % readers;
          if (reserved[i] === 0) {
            if (pacer.reserve(READ)) reserved[i] = READ;
            continue;
          }
          // A reader reads at most what it reserved, or closes and gives the rest back.
          if (closes) {
            pacer.refund(reserved[i]!);
            reserved[i] = 0;
            continue;
          }
          const read = Math.min(chunk, reserved[i]!);
          reserved[i]! -= read;
          discarded += read;
          if (discarded > burst + (rate * elapsedMs) / 1000 + READ) return false;
        }
        return true;
      },
    ),
    { numRuns: 300 },
  );
  t.pass('held over 300 random sets of up to 200 readers');
});
