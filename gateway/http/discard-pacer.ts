// A pace for bytes the gateway reads only to throw away: the rest of a refused upload while its
// connection lingers. Each chunk Node hands over is a buffer that V8 frees only at its next full
// collection, which it starts when such memory has grown by tens of megabytes; unpaced, a flood of
// refused uploads fills that allowance again and again (the bench's stalled-upload rows).
// A token bucket with debt: every chunk is counted, and a reader whose chunk took the budget below
// zero pauses until it is positive again, so over any span the bytes discarded stay within
// burst + rate × time + the chunks readers were handed as it ran out.

export class DiscardPacer {
  private tokens: number;
  private updatedAt: number;
  private readonly waiting = new Set<() => void>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly bytesPerSecond: number,
    readonly burstBytes: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!(bytesPerSecond > 0) || !(burstBytes > 0)) throw new RangeError('a DiscardPacer needs a positive rate and burst');
    this.tokens = burstBytes;
    this.updatedAt = now();
  }

  /** True while a reader may go on. */
  get available(): boolean {
    this.refill();
    return this.tokens > 0;
  }

  /** Counts discarded bytes; false once the budget is spent: pause, and wait with whenAvailable. */
  take(bytes: number): boolean {
    this.refill();
    this.tokens -= bytes;
    return this.tokens > 0;
  }

  /** Calls `resume` once the budget is positive again; what it returns cancels the wait. */
  whenAvailable(resume: () => void): () => void {
    this.waiting.add(resume);
    this.schedule();
    return () => this.waiting.delete(resume);
  }

  private refill(): void {
    const now = this.now();
    this.tokens = Math.min(this.burstBytes, this.tokens + ((now - this.updatedAt) / 1000) * this.bytesPerSecond);
    this.updatedAt = now;
  }

  private schedule(): void {
    if (this.timer !== undefined || this.waiting.size === 0) return;
    this.refill();
    // Until the debt is repaid, and a millisecond past it, so the budget is positive when the timer fires.
    const delayMs = Math.ceil((Math.max(0, -this.tokens) / this.bytesPerSecond) * 1000) + 1;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.release();
    }, delayMs);
    this.timer.unref();
  }

  private release(): void {
    if (!this.available) return this.schedule();
    // Every waiter goes on: each takes its next chunk from the budget, and waits again if it runs out.
    const waiting = [...this.waiting];
    this.waiting.clear();
    for (const resume of waiting) resume();
  }
}
