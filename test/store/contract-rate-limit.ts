// The rate-limit part of the store contract (GCRA, gateway/store/gcra.ts), run against every store
// from credentialStoreContract. Windows are long where exact numbers are asserted (a slow machine
// cannot refill them between two calls) and short only where a test waits for the refill.
import { randomUUID } from 'node:crypto';
import type { Test } from 'tap';
import type { StoreFactory, StoreTime } from './contract.js';

const ROUTE = 'public:GET /v1/sales/{id}';

export function rateLimitContract(t: Test, factory: StoreFactory, time: StoreTime): void {
  t.test('takeRateLimit: N allowed, counting down, then refused until one interval has passed', async (t) => {
    const store = await factory(t);
    const client = randomUUID();
    const rule = { requests: 3, perSeconds: 60 };
    // One request every 20 s, a burst of 3: the quota is whole again 20 s after each request.
    t.same(await store.takeRateLimit(client, ROUTE, rule), { allowed: true, remaining: 2, retryAfterSeconds: 0, resetSeconds: 20 });
    t.same(await store.takeRateLimit(client, ROUTE, rule), { allowed: true, remaining: 1, retryAfterSeconds: 0, resetSeconds: 40 });
    t.same(await store.takeRateLimit(client, ROUTE, rule), { allowed: true, remaining: 0, retryAfterSeconds: 0, resetSeconds: 60 });
    t.same(await store.takeRateLimit(client, ROUTE, rule), { allowed: false, remaining: 0, retryAfterSeconds: 20, resetSeconds: 60 });
    t.same(
      await store.takeRateLimit(client, ROUTE, rule),
      { allowed: false, remaining: 0, retryAfterSeconds: 20, resetSeconds: 60 },
      'a refusal counts nothing',
    );
  });

  t.test('takeRateLimit: counted per credential and per route', async (t) => {
    const store = await factory(t);
    const [a, b] = [randomUUID(), randomUUID()];
    const rule = { requests: 1, perSeconds: 60 };
    t.equal((await store.takeRateLimit(a, ROUTE, rule)).allowed, true);
    t.equal((await store.takeRateLimit(a, ROUTE, rule)).allowed, false);
    t.equal((await store.takeRateLimit(b, ROUTE, rule)).allowed, true, 'another credential has its own quota');
    t.equal((await store.takeRateLimit(a, 'public:GET /v1/sales', rule)).allowed, true, 'another route has its own quota');
  });

  t.test("takeRateLimit: the quota refills at the rule's rate; refusals do not delay it", async (t) => {
    const store = await factory(t);
    const client = randomUUID();
    const rule = { requests: 2, perSeconds: 1 };
    t.equal((await store.takeRateLimit(client, ROUTE, rule)).allowed, true);
    t.equal((await store.takeRateLimit(client, ROUTE, rule)).allowed, true);
    const refused = await store.takeRateLimit(client, ROUTE, rule);
    t.same(refused, { allowed: false, remaining: 0, retryAfterSeconds: 1, resetSeconds: 1 });
    for (let i = 0; i < 5; i++) t.equal((await store.takeRateLimit(client, ROUTE, rule)).allowed, false);
    await time.pass(550);
    const refilled = await store.takeRateLimit(client, ROUTE, rule);
    t.match(refilled, { allowed: true, remaining: 0 }, 'one request every 500 ms');
    t.equal((await store.takeRateLimit(client, ROUTE, rule)).allowed, false);
    await time.pass(1050);
    t.match(await store.takeRateLimit(client, ROUTE, rule), { allowed: true, remaining: 1 }, 'after a whole window the whole burst is back');
  });

  t.test('takeRateLimit: 100 concurrent requests against a limit of 10 allow exactly 10', async (t) => {
    const store = await factory(t);
    const client = randomUUID();
    const rule = { requests: 10, perSeconds: 60 };
    const results = await Promise.all(Array.from({ length: 100 }, () => store.takeRateLimit(client, ROUTE, rule)));
    t.equal(results.filter((r) => r.allowed).length, 10);
    t.same(
      results
        .filter((r) => r.allowed)
        .map((r) => r.remaining)
        .sort((x, y) => x - y),
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
      'each allowed request saw its own count',
    );
    t.ok(results.filter((r) => !r.allowed).every((r) => r.retryAfterSeconds >= 1 && r.retryAfterSeconds <= 6));
  });

  t.test('takeRateLimit: a large quota over a long window, and the largest allowed rate', async (t) => {
    const store = await factory(t);
    const client = randomUUID();
    t.same(await store.takeRateLimit(client, ROUTE, { requests: 1000, perSeconds: 86_400 }), {
      allowed: true,
      remaining: 999,
      retryAfterSeconds: 0,
      resetSeconds: 87,
    });
    const fast = { requests: 10_000, perSeconds: 1 };
    const results = await Promise.all(Array.from({ length: 20 }, () => store.takeRateLimit(client, 'fast', fast)));
    t.ok(
      results.every((r) => r.allowed && r.resetSeconds === 1),
      'a 100 µs interval counts in whole microseconds',
    );
  });
}
