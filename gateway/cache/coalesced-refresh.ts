// A re-read of shared state (the signing keys, the client-secret hashing key) that many callers
// ask for at once: a watcher's notice, a periodic timer, an admin change. Callers arriving while a
// round runs share the next round, which starts once this one ends, so whoever awaits sees the
// state as it was at least when they called, and any number of such callers cost one more round.

export class CoalescedRefresh {
  /** The round that runs. */
  private running: Promise<void> | undefined;
  /** The round the callers who arrived during `running` wait for. */
  private queued: Promise<void> | undefined;

  constructor(private readonly refreshOnce: () => Promise<void>) {}

  /** Resolves (or rejects) with a round that begins after this call. */
  run(): Promise<void> {
    if (this.queued) return this.queued;
    if (!this.running) return this.start();
    // A failed round fails only its own callers: the queued round runs whatever it ended with.
    const next = () => {
      this.queued = undefined;
      return this.start();
    };
    this.queued = this.running.then(next, next);
    return this.queued;
  }

  private start(): Promise<void> {
    const round = (async () => this.refreshOnce())();
    this.running = round;
    const ended = () => {
      if (this.running === round) this.running = undefined;
    };
    void round.then(ended, ended);
    return round;
  }
}
