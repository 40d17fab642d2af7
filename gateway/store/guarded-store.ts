// Puts a StoreBreaker in front of any CredentialStore. Every method that talks to the store goes
// through the breaker, including methods added to the interface later (hence a Proxy rather than
// a hand-written delegate per method); watchMeta (its own connection and re-reads), close and
// plain properties pass through untouched.
import type { StoreBreaker } from './circuit-breaker.js';
import type { CredentialStore } from './types.js';

const UNGUARDED: ReadonlySet<PropertyKey> = new Set(['watchMeta', 'close', 'constructor']);

/** Where each store call's duration goes (seconds), e.g. the store stage histogram. */
export interface StoreCallObserver {
  observe(seconds: number): void;
}

export function guardStore(inner: CredentialStore, breaker: StoreBreaker, timing?: StoreCallObserver): CredentialStore {
  // By function, not by name: a method replaced on the instance (tests count calls so) is followed.
  const wrapped = new WeakMap<object, unknown>();
  return new Proxy(inner, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function' || UNGUARDED.has(property))
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      let guarded = wrapped.get(value);
      if (!guarded) {
        const method = value as (...args: unknown[]) => Promise<unknown>;
        const run = (...args: unknown[]) => breaker.run(() => method.apply(target, args));
        guarded = timing
          ? async (...args: unknown[]) => {
              const started = performance.now();
              try {
                return await run(...args);
              } finally {
                timing.observe((performance.now() - started) / 1000);
              }
            }
          : run;
        wrapped.set(value, guarded);
      }
      return guarded;
    },
  });
}
