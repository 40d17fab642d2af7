// The start-up check of the credential store's indexes: once the store first answers, one repair
// (gateway/store/index-repair.ts) runs in the background, so that a record a failover or an
// unfinished create left unlisted is listed again without an operator. One log line with what it
// found; a failure (the store went away) is tried again when the store is back.
import type { Logger } from 'pino';
import type { StoreRepairView } from '../admin/store-routes.js';
import { storeRepairView } from '../admin/store-routes.js';
import { reasonOf, type StoreBreaker } from '../store/circuit-breaker.js';
import type { CredentialStore } from '../store/types.js';

/** Starts watching for the store's first answer; returns the function that stops it. */
export function repairWhenUp(breaker: StoreBreaker, store: CredentialStore, log: Pick<Logger, 'info' | 'warn'>): () => void {
  if (!store.repairIndexes) return () => {};
  let state: 'waiting' | 'running' | 'done' | 'stopped' = 'waiting';
  const run = () => {
    if (state !== 'waiting') return;
    state = 'running';
    store.repairIndexes!().then(
      (report) => {
        if (state === 'stopped') return;
        state = 'done';
        const view: StoreRepairView = storeRepairView(store.kind, report);
        const changed =
          view.clients.index_added +
          view.clients.index_removed +
          view.service_accounts.index_added +
          view.service_accounts.index_removed +
          view.service_accounts.pointers_added +
          view.service_accounts.pointers_removed;
        const fields = {
          event: 'store_repair',
          clients: view.clients,
          service_accounts: view.service_accounts,
          nodes_scanned: view.nodes_scanned,
          duration_ms: view.duration_ms,
        };
        if (changed > 0) log.warn(fields, 'credential store indexes repaired at start: records were missing from the lists or entries had no record');
        else log.info(fields, 'credential store indexes checked at start: every record listed');
      },
      (error: unknown) => {
        if (state === 'stopped') return;
        state = 'waiting';
        log.warn(
          { event: 'store_repair', reason: reasonOf(error) },
          'checking the credential store indexes at start failed; trying again when the store answers',
        );
      },
    );
  };
  const unsubscribe = breaker.onTransition((event) => event.kind === 'up' && run());
  if (breaker.up) run();
  return () => {
    state = 'stopped';
    unsubscribe();
  };
}
