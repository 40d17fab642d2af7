// One log line and one metric update per change of the store's state, never one per refused
// request: an outage under load would otherwise write a stack trace for every 503. On a Redis
// Cluster each master has its own state too: the same events, with the master as `node`.
import type { Logger } from 'pino';
import type { GatewayMetrics } from '../metrics/metrics.js';
import type { StoreBreaker } from '../store/circuit-breaker.js';
import type { StoreNodes } from '../store/node-breakers.js';

/** `store` says where the store is (never a password), so that the line alone tells what to look at. */
export function reportStoreTransitions(
  breaker: StoreBreaker,
  log: Pick<Logger, 'info' | 'error'>,
  metrics: GatewayMetrics,
  store: string,
  nodes?: StoreNodes,
): void {
  metrics.observeStore(breaker);
  if (nodes) reportNodeTransitions(nodes, log, metrics);
  breaker.onTransition((event) => {
    if (event.kind === 'down') {
      metrics.storeOutages.inc();
      log.error(
        { event: 'store_down', store, reason: event.reason },
        event.first
          ? `credential store unreachable at start: ${store} (${event.reason}); not ready, requests get 503 store_unavailable until it answers`
          : `credential store down: ${store} (${event.reason}); requests get 503 store_unavailable at once until it answers again`,
      );
    } else if (event.first) {
      log.info({ event: 'store_up' }, 'credential store connected');
    } else {
      log.info({ event: 'store_up', outage_ms: event.outageMs }, 'credential store up again');
    }
  });
}

function reportNodeTransitions(nodes: StoreNodes, log: Pick<Logger, 'info' | 'error'>, metrics: GatewayMetrics): void {
  metrics.observeStoreNodes(nodes);
  nodes.onTransition((event) => {
    if (event.kind === 'down') {
      log.error(
        { event: 'store_down', node: event.node, reason: event.reason },
        'a Redis Cluster master is down: requests whose keys it holds get 503 store_unavailable at once; the other masters keep serving',
      );
    } else if (event.moved) {
      log.info(
        { event: 'store_up', node: event.node, outage_ms: event.outageMs, moved: true },
        'the slots of the lost Redis Cluster master are served by another master now',
      );
    } else {
      log.info({ event: 'store_up', node: event.node, outage_ms: event.outageMs }, 'a Redis Cluster master answers again');
    }
  });
}
