// One re-read at a time; callers arriving during a round share exactly one more round after it,
// and a failed round fails only its own callers.
import t from 'tap';
import { CoalescedRefresh } from '../../gateway/cache/coalesced-refresh.js';

/** A refresh whose rounds the test ends one at a time; `rounds` counts those started. */
function controlledRefresh() {
  const ends: { resolve: () => void; reject: (error: Error) => void }[] = [];
  const state = { rounds: 0 };
  const refresh = new CoalescedRefresh(
    () =>
      new Promise<void>((resolve, reject) => {
        state.rounds++;
        ends.push({ resolve, reject });
      }),
  );
  /** Ends the round that runs; resolves once the queued round (if any) has had the chance to start. */
  const end = async (error?: Error) => {
    const round = ends.shift();
    if (!round) throw new Error('no round runs');
    if (error) round.reject(error);
    else round.resolve();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { refresh, state, end, runningRounds: () => ends.length };
}

t.test('concurrent callers share the rounds: a call mid-round starts exactly one more after it', async (t) => {
  const { refresh, state, end, runningRounds } = controlledRefresh();
  const settled: string[] = [];
  const first = refresh.run().then(() => settled.push('first'));
  t.equal(state.rounds, 1, 'the first call starts a round');
  const during = [1, 2, 3].map((i) => refresh.run().then(() => settled.push(`during-${i}`)));
  t.equal(state.rounds, 1, 'calls during a round start none themselves');

  await end();
  await first;
  t.same(settled, ['first'], 'the first caller has its round; the others wait for the next');
  t.equal(state.rounds, 2, 'exactly one more round for all the calls made during the first');
  t.equal(runningRounds(), 1, 'one round at a time');

  await end();
  await Promise.all(during);
  t.same(settled, ['first', 'during-1', 'during-2', 'during-3']);
  t.equal(state.rounds, 2, 'no round without a caller');

  const later = refresh.run();
  t.equal(state.rounds, 3, 'a call once idle starts a round at once');
  await end();
  await later;
  t.equal(state.rounds, 3);
});

t.test('a call made as a round ends, before the queued one starts, joins the queued round', async (t) => {
  const { refresh, state, end, runningRounds } = controlledRefresh();
  let joined: Promise<void> | undefined;
  // This reaction runs after the helper learns the round ended, before it starts the queued one.
  const first = refresh.run().then(() => {
    joined = refresh.run();
    t.equal(runningRounds(), 0, 'called while no round runs');
  });
  const queued = refresh.run();
  await end();
  await first;
  t.equal(joined, queued, 'the call joined the queued round');
  t.equal(state.rounds, 2, 'and started no round of its own');
  await end();
  await Promise.all([queued, joined]);
  t.equal(state.rounds, 2);
});

t.test('an error fails the callers of its round only; the queued round still runs', async (t) => {
  const { refresh, state, end } = controlledRefresh();
  // Each outcome is awaited as soon as the promise exists: a rejection is never left unhandled.
  const failing = t.rejects(refresh.run(), { message: 'store down' }, 'the caller of the failed round gets its error');
  const next = t.resolves(refresh.run(), 'the callers of the next round get its result');
  await end(new Error('store down'));
  await failing;
  t.equal(state.rounds, 2, 'the queued round started after the failure');
  await end();
  await next;

  const again = t.rejects(refresh.run(), { message: 'still down' });
  const alsoAgain = t.rejects(refresh.run(), { message: 'down a third time' }, 'a failed queued round fails its own callers');
  await end(new Error('still down'));
  await again;
  await end(new Error('down a third time'));
  await alsoAgain;
  t.equal(state.rounds, 4);
});

t.test('a refresh that throws synchronously rejects its callers and leaves the helper usable', async (t) => {
  let calls = 0;
  const refresh = new CoalescedRefresh(() => {
    calls++;
    if (calls === 1) throw new Error('thrown at once');
    return Promise.resolve();
  });
  await t.rejects(refresh.run(), { message: 'thrown at once' });
  await t.resolves(refresh.run());
  t.equal(calls, 2);
});
