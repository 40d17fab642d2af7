// A circuit breaker for the credential store. While the store answers ("up"), calls pass through;
// after `failureThreshold` StoreUnavailableErrors in a row it opens ("down"): calls fail at once
// without touching the store, so a hung Redis costs each request nothing instead of a command
// timeout, and no backlog of commands piles up on its connection. While down, one probe (a ping)
// runs every `probeIntervalMs` (the half-open state); the first that answers closes it again.
// Only StoreUnavailableError counts: a "not found" or any other answer is the store working. The
// store-wide breaker does not count a NodeUnavailableError either: one lost Cluster master has its
// own breaker (node-breakers.ts), and the other masters keep serving.
import { NodeUnavailableError } from './node-unavailable-error.js';
import { StoreUnavailableError } from './store-unavailable-error.js';

export type BreakerEvent = { kind: 'down'; reason: string; first: boolean } | { kind: 'up'; outageMs: number; first: boolean };

export interface BreakerOptions {
  /** One round trip to the store, bounded by its command timeout. */
  probe: () => Promise<void>;
  failureThreshold?: number;
  probeIntervalMs?: number;
  now?: () => number;
  /** Start closed, as if a first probe had answered (a breaker made on first use, per node). */
  initiallyUp?: boolean;
  /** Which failures count towards opening; default StoreUnavailableError but not NodeUnavailableError. */
  counts?: (error: unknown) => boolean;
}

const storeWide = (error: unknown) => error instanceof StoreUnavailableError && !(error instanceof NodeUnavailableError);

export class StoreBreaker {
  private state: 'starting' | 'up' | 'down' = 'starting';
  private failures = 0;
  private downSince = 0;
  private reason = 'not yet connected';
  private probing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly listeners = new Set<(event: BreakerEvent) => void>();
  private readonly failureThreshold: number;
  private readonly probeIntervalMs: number;
  private readonly now: () => number;
  private readonly counts: (error: unknown) => boolean;

  constructor(private readonly options: BreakerOptions) {
    this.failureThreshold = options.failureThreshold ?? 3;
    this.probeIntervalMs = options.probeIntervalMs ?? 500;
    this.now = options.now ?? Date.now;
    this.counts = options.counts ?? storeWide;
    this.downSince = this.now();
    if (options.initiallyUp) this.state = 'up';
  }

  /** True once the store answered and while it keeps answering. */
  get up(): boolean {
    return this.state === 'up';
  }

  /** Why the store counts as down (the last failure), for readiness answers. */
  get downReason(): string | undefined {
    return this.state === 'up' ? undefined : this.reason;
  }

  onTransition(listener: (event: BreakerEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The first probe; resolves when its answer (up or down) is known. Later probes run by themselves. */
  start(): Promise<void> {
    return this.probe();
  }

  /** Runs a store call, or fails at once while the breaker is open. */
  async run<T>(call: () => Promise<T>): Promise<T> {
    if (this.state !== 'up') throw new StoreUnavailableError(new Error(`circuit open: ${this.reason}`));
    try {
      const result = await call();
      this.failures = 0;
      return result;
    } catch (error) {
      if (this.counts(error)) this.failed(error);
      throw error;
    }
  }

  /** Runs a probe now unless one is running (readiness checks may ask for one). */
  probe(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.probing ??= this.options
      .probe()
      .then(
        () => this.open(),
        (error: unknown) => this.failed(error, true),
      )
      .finally(() => {
        this.probing = undefined;
        this.schedule();
      });
    return this.probing;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.listeners.clear();
  }

  private failed(error: unknown, probe = false): void {
    const reason = reasonOf(error);
    if (this.state === 'down') {
      this.reason = reason;
      return;
    }
    // A probe's failure counts at once; regular calls only after a run of them (one slow command is not an outage).
    if (!probe && ++this.failures < this.failureThreshold) return;
    const first = this.state === 'starting';
    this.state = 'down';
    this.reason = reason;
    this.downSince = first ? this.downSince : this.now();
    this.emit({ kind: 'down', reason, first });
    this.schedule();
  }

  private open(): void {
    this.failures = 0;
    if (this.state === 'up') return;
    const first = this.state === 'starting';
    this.state = 'up';
    this.emit({ kind: 'up', outageMs: this.now() - this.downSince, first });
  }

  private schedule(): void {
    if (this.closed || this.state === 'up' || this.probing) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.probe(), this.probeIntervalMs);
    this.timer.unref();
  }

  private emit(event: BreakerEvent): void {
    for (const listener of [...this.listeners]) listener(event);
  }
}

/** A short reason: the root cause's message (e.g. "Command timed out", "connect ECONNREFUSED ..."). */
export function reasonOf(error: unknown): string {
  let cause: unknown = error;
  while (cause instanceof StoreUnavailableError && cause.cause !== undefined) cause = cause.cause;
  return cause instanceof Error ? cause.message : String(cause);
}
