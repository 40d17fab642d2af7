// How a serving process (the only one, or a cluster worker) obeys: SIGHUP (or a change of the
// policy files, when GATEWAY_POLICIES_POLL_SECONDS is set) reloads the policy; the
// first SIGTERM or SIGINT drains and exits; a second one exits at once. A worker takes the same
// orders from its primary as messages (see messages.ts).
import cluster from 'node:cluster';
import type { Logger } from 'pino';
import type { Gateway } from '../app.js';
import { PolicyPoller } from '../policy/policy-watch.js';
import { drainAndClose, type DrainTiming } from './drain.js';
import { isProcessMessage } from './messages.js';

export interface ControlOptions {
  readonly timing: DrainTiming;
  /** Runs once the gateway has closed (the example upstreams stop here). */
  afterClose(): Promise<void>;
}

export function obeyOrders(gateway: Gateway, log: Logger, options: ControlOptions): void {
  const reload = () => {
    const result = gateway.reloadPolicy();
    if (result.ok) log.info({ routes: result.routes }, 'policy reloaded');
    else log.error({ error: result.error, routes: result.routes }, 'policy reload rejected; the running policy is kept');
  };

  const pollSeconds = gateway.settings.policiesPollSeconds;
  const stopPolling = pollSeconds > 0 ? new PolicyPoller(gateway.settings.policiesDir, reload).every(pollSeconds) : () => {};

  let stopping = false;
  const stopNow = (reason: string) => {
    log.warn({ reason }, 'stopping at once: requests still in flight are cut off');
    process.exit(1);
  };
  const drain = async (reason: string) => {
    if (stopping) return;
    stopping = true;
    stopPolling();
    log.info({ reason, drain_seconds: options.timing.drainMs / 1000 }, 'draining: /readyz answers 503 and connections close after their response');
    try {
      const finished = await drainAndClose(gateway, options.timing);
      await options.afterClose();
      if (finished) log.info('stopped: every request was answered');
      else log.warn({ waited_ms: options.timing.finishMs }, 'stopped: requests still in flight were cut off');
      process.exit(finished ? 0 : 1);
    } catch (error) {
      log.error({ err: error }, 'stopping failed');
      process.exit(1);
    }
  };
  // Signals are counted apart from the primary's orders: Ctrl-C reaches a worker both as a signal
  // and as the primary's drain order, in either order, and that is one stop, not two.
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => (++signals > 1 ? stopNow(signal) : void drain(signal));
  process.on('SIGHUP', reload);
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  if (cluster.isWorker) {
    process.on('message', (message: unknown) => {
      if (!isProcessMessage(message)) return;
      if (message.gateway === 'reload') reload();
      else if (message.gateway === 'drain') void drain('the primary is stopping');
      else if (message.gateway === 'stop') stopNow('the primary stops at once');
    });
    // If the primary dies, node:cluster ends its workers at once: signal the primary, never kill it.
  }
}
