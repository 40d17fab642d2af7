// A pace for bytes the gateway reads only to throw away: the rest of a refused upload while its
// connection lingers. Each chunk Node hands over is a buffer that V8 frees only at its next full
// collection, which it starts when such memory has grown by tens of megabytes; unpaced, a flood of
// refused uploads fills that allowance again and again (the bench's stalled-upload rows).
// A token bucket with debt: a reader reserves one read before it reads, a reservation is granted
// only while the budget is positive, and bytes beyond a reservation are counted too; so over any
// span the bytes discarded stay within burst + rate × time + one read, however many readers wait.

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

  /**
   * Takes `bytes` ahead of a read, only while the budget is positive (it may then fall that far below
   * zero): however many readers wait, those let go hold one read's worth each, and only while there
   * is budget for it. False when there is none: wait with whenAvailable.
   */
  reserve(bytes: number): boolean {
    if (!this.available) return false;
    this.tokens -= bytes;
    return true;
  }

  /** Gives back the part of a reservation that was not read. */
  refund(bytes: number): void {
    this.refill();
    this.tokens = Math.min(this.burstBytes, this.tokens + bytes);
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
    // Every waiter tries again: those that get a reservation read, the others wait once more.
    const waiting = [...this.waiting];
    this.waiting.clear();
    for (const resume of waiting) resume();
  }
}
