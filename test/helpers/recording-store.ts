// A store that records every method call by name, for tests that count store round trips, and
// that may answer a call in the store's place (a failure, a concurrent change).
import type { CredentialStore } from '../../gateway/store/types.js';

/** An answer to give instead of the store's, or undefined to let the store answer. */
export type StandInAnswer = (name: string, args: unknown[]) => Promise<unknown> | undefined;

export function recordingStore(store: CredentialStore, calls: string[], standIn?: StandInAnswer): CredentialStore {
  return new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(String(name));
        return standIn?.(String(name), args) ?? (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}
