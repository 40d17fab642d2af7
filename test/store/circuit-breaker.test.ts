// The store's circuit breaker: opens on a run of StoreUnavailableErrors only (a "not found" or any
// other answer is the store working), then fails fast without calling the store, probes while open
// and closes on the first probe that answers; one event per transition.
import t, { type Test } from 'tap';
import { StoreBreaker, type BreakerEvent } from '../../gateway/store/circuit-breaker.js';
import { guardStore } from '../../gateway/store/guarded-store.js';
import { EmbeddedCredentialStore } from '../../gateway/store/embedded-store.js';
import { StoreUnavailableError, type CredentialStore } from '../../gateway/store/types.js';
import { until } from '../helpers/poll.js';

function breakerWith(t: Test, probe: () => Promise<void>) {
  const events: BreakerEvent[] = [];
  const breaker = new StoreBreaker({ probe, probeIntervalMs: 20, failureThreshold: 3 });
  breaker.onTransition((e) => events.push(e));
  t.teardown(() => breaker.close());
  return { breaker, events };
}

t.test('closed until a run of StoreUnavailableErrors; "not found" and other errors do not count', async (t) => {
  let healthy = true;
  const { breaker, events } = breakerWith(t, async () => {
    if (!healthy) throw new StoreUnavailableError(new Error('connect ECONNREFUSED'));
  });
  await breaker.start();
  t.ok(breaker.up);
  t.match(events, [{ kind: 'up', first: true }]);

  for (let i = 0; i < 10; i++) t.equal(await breaker.run(async () => null), null, 'a "not found" answer');
  for (let i = 0; i < 10; i++)
    await t.rejects(
      breaker.run(async () => Promise.reject(new TypeError('a bug, not an outage'))),
      TypeError,
    );
  const unavailable = () => breaker.run(async () => Promise.reject(new StoreUnavailableError(new Error('Command timed out'))));
  await t.rejects(unavailable(), StoreUnavailableError);
  await t.rejects(unavailable(), StoreUnavailableError);
  t.equal(await breaker.run(async () => 'answered'), 'answered', 'a success resets the run');
  await t.rejects(unavailable(), StoreUnavailableError);
  await t.rejects(unavailable(), StoreUnavailableError);
  t.ok(breaker.up, 'two in a row: still closed');
  healthy = false;
  await t.rejects(unavailable(), StoreUnavailableError);
  t.notOk(breaker.up, 'the third in a row opens it');
  t.match(events.at(-1), { kind: 'down', reason: 'Command timed out', first: false });

  let calls = 0;
  for (let i = 0; i < 50; i++) {
    await t.rejects(
      breaker.run(async () => {
        calls++;
      }),
      { name: 'StoreUnavailableError', cause: { message: /circuit open/ } },
    );
  }
  t.equal(calls, 0, 'while open, the store is not called');

  healthy = true;
  await until(() => breaker.up, 'a probe closes it', 2000);
  t.same(
    events.map((e) => e.kind),
    ['up', 'down', 'up'],
    'one event per transition',
  );
  t.match(events.at(-1), { kind: 'up', first: false, outageMs: Number });
});

t.test('starting unreachable: down at once, with the reason, until a probe answers', async (t) => {
  let healthy = false;
  const { breaker, events } = breakerWith(t, async () => {
    if (!healthy) throw new StoreUnavailableError(new Error('connect ECONNREFUSED 127.0.0.1:1'));
  });
  await breaker.start();
  t.notOk(breaker.up);
  t.equal(breaker.downReason, 'connect ECONNREFUSED 127.0.0.1:1');
  t.match(events, [{ kind: 'down', first: true }]);
  await t.rejects(
    breaker.run(async () => 1),
    StoreUnavailableError,
    'nothing passes before the store answered',
  );
  healthy = true;
  await until(() => breaker.up, 'up once it answers', 2000);
  t.equal(events.length, 2, 'probes that keep failing add no events');
});

t.test('guardStore: every store method goes through the breaker; watchMeta and close do not', async (t) => {
  const inner = new EmbeddedCredentialStore(undefined);
  let down = false;
  const breaker = new StoreBreaker({
    probe: async () => (down ? Promise.reject(new StoreUnavailableError(new Error('down'))) : undefined),
    probeIntervalMs: 20,
    failureThreshold: 1,
  });
  t.teardown(() => breaker.close());
  await breaker.start();
  const store: CredentialStore = guardStore(inner, breaker);
  t.equal(store.kind, 'embedded');
  t.equal(await store.getClient('missing'), null, 'not found passes');
  t.ok(breaker.up);
  down = true;
  const original = inner.getMeta.bind(inner);
  inner.getMeta = async () => Promise.reject(new StoreUnavailableError(new Error('Command timed out')));
  await t.rejects(store.getMeta('x'), StoreUnavailableError);
  t.notOk(breaker.up, 'opened');
  inner.getMeta = original;
  await t.rejects(store.getClient('missing'), StoreUnavailableError, 'other methods fail fast too');
  let notified = 0;
  const stop = store.watchMeta('x', () => notified++);
  await inner.compareAndSetMeta('x', null, 'v');
  t.ok(notified > 0, 'watches still work while open');
  stop();
  down = false;
  await until(() => breaker.up, 'closes again', 2000);
  t.equal(await store.getMeta('x'), 'v');
  await store.close();
});
