// GATEWAY_WORKERS > 1: the primary serves nothing itself. It forks the workers (node:cluster shares
// the listening ports among them), starts a replacement when one dies (with a backoff, so a crash
// loop does not spin), relays SIGHUP (policy reload) and SIGTERM/SIGINT (drain) to every worker,
// and exits once every worker has drained. Operators signal the primary only.
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import type { Order, ProcessMessage } from './messages.js';
import { isProcessMessage } from './messages.js';
import { RestartBackoff } from './restart-backoff.js';

export interface SupervisorOptions {
  readonly workers: number;
  /** Added to each worker's environment (what the primary filled in: example upstreams, admin token). */
  readonly env: NodeJS.ProcessEnv;
  /** How long a worker's drain may take before the primary kills it. */
  readonly stopTimeoutMs: number;
  /** Runs once, when every first worker listens. */
  onStarted(pids: number[]): void;
  /** Runs once every worker has exited, before the primary exits. */
  afterStop(): Promise<void>;
}

interface Slot {
  worker: Worker | undefined;
  ready: boolean;
  startedAt: number;
  readonly backoff: RestartBackoff;
  restart: NodeJS.Timeout | undefined;
}

/** After a "stop at once", how long workers get to exit before they are killed. */
const STOP_NOW_GRACE_MS = 2000;

export function superviseWorkers(log: Logger, options: SupervisorOptions): void {
  let state: 'starting' | 'running' | 'stopping' | 'stopping-now' = 'starting';
  let clean = true;
  let killTimer: NodeJS.Timeout | undefined;
  const slots: Slot[] = Array.from({ length: options.workers }, () => ({
    worker: undefined,
    ready: false,
    startedAt: 0,
    backoff: new RestartBackoff(),
    restart: undefined,
  }));
  const live = () => slots.flatMap((slot) => (slot.worker ? [slot] : []));
  const pids = () => live().map((slot) => slot.worker!.process.pid!);

  /** A worker that listens gets the order; one still starting has no handler yet and is simply ended. */
  const order = (slot: Slot, what: Order) => {
    if (slot.ready) {
      // A worker that just died has no channel left: its exit is handled on its own.
      const pid = slot.worker!.process.pid;
      slot.worker!.send({ gateway: what } satisfies ProcessMessage, (error) => {
        if (error) log.warn({ worker_pid: pid, order: what }, 'a worker could not be told');
      });
    } else if (what !== 'reload') slot.worker!.process.kill(what === 'stop' ? 'SIGKILL' : 'SIGTERM');
  };

  const finishIfDone = () => {
    if (live().length > 0) return;
    clearTimeout(killTimer);
    void options.afterStop().finally(() => {
      log.info({ clean }, 'gateway stopped: every worker has exited');
      process.exit(clean ? 0 : 1);
    });
  };

  const killAll = () => {
    clean = false;
    for (const slot of live()) slot.worker!.process.kill('SIGKILL');
  };

  const stop = (reason: string, now: boolean) => {
    if (state === 'stopping-now' || (state === 'stopping' && !now)) return;
    state = now ? 'stopping-now' : 'stopping';
    if (now) clean = false;
    for (const slot of slots) clearTimeout(slot.restart);
    log.info({ reason, workers: pids() }, now ? 'stopping every worker at once' : 'draining every worker');
    for (const slot of live()) order(slot, now ? 'stop' : 'drain');
    clearTimeout(killTimer);
    killTimer = setTimeout(
      () => {
        log.error({ workers: pids() }, 'workers did not exit in time; killing them');
        killAll();
      },
      now ? STOP_NOW_GRACE_MS : options.stopTimeoutMs,
    );
    finishIfDone();
  };

  const fork = (slot: Slot) => {
    slot.restart = undefined;
    const worker = cluster.fork(options.env);
    Object.assign(slot, { worker, ready: false, startedAt: Date.now() });
    worker.on('message', (message: unknown) => {
      if (!isProcessMessage(message) || message.gateway !== 'ready' || slot.worker !== worker) return;
      slot.ready = true;
      if (state === 'stopping') order(slot, 'drain');
      if (state === 'starting' && slots.every((s) => s.ready)) {
        state = 'running';
        options.onStarted(pids());
        log.info({ workers: pids() }, 'gateway started');
      }
    });
    worker.on('exit', (code, signal) => {
      if (slot.worker === worker) Object.assign(slot, { worker: undefined, ready: false });
      const exit = { worker_pid: worker.process.pid, code, signal };
      if (state === 'stopping' || state === 'stopping-now') {
        if (code !== 0) clean = false;
        finishIfDone();
      } else if (state === 'starting') {
        log.fatal(exit, 'a worker failed to start; stopping the others');
        clean = false;
        state = 'stopping-now';
        killAll();
        finishIfDone();
      } else {
        const delay = slot.backoff.exited(Date.now() - slot.startedAt);
        log.error({ ...exit, restart_in_ms: delay }, 'worker exited; starting a replacement');
        slot.restart = setTimeout(() => fork(slot), delay);
      }
    });
  };

  process.on('SIGHUP', () => {
    log.info({ workers: pids() }, 'SIGHUP: every worker reloads the policy');
    for (const slot of live()) order(slot, 'reload');
  });
  const onStopSignal = (signal: NodeJS.Signals) => stop(signal, state === 'stopping');
  process.on('SIGTERM', onStopSignal);
  process.on('SIGINT', onStopSignal);

  for (const slot of slots) fork(slot);
}
