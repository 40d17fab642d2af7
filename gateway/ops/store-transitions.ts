// One log line and one metric update per change of the store's state, never one per refused
// request: an outage under load would otherwise write a stack trace for every 503.
import type { Logger } from 'pino';
import type { GatewayMetrics } from '../metrics/metrics.js';
import type { StoreBreaker } from '../store/circuit-breaker.js';

export function reportStoreTransitions(breaker: StoreBreaker, log: Pick<Logger, 'info' | 'error'>, metrics: GatewayMetrics): void {
  metrics.observeStore(breaker);
  breaker.onTransition((event) => {
    if (event.kind === 'down') {
      metrics.storeOutages.inc();
      log.error(
        { event: 'store_down', reason: event.reason },
        event.first ? 'credential store unreachable at start: not ready, requests get 503 store_unavailable until it answers' : 'credential store down: requests get 503 store_unavailable at once until it answers again',
      );
    } else if (event.first) {
      log.info({ event: 'store_up' }, 'credential store connected');
    } else {
      log.info({ event: 'store_up', outage_ms: event.outageMs }, 'credential store up again');
    }
  });
}
