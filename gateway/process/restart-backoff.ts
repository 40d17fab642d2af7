// When to start a replacement for a worker that died. A worker that dies soon after it started is
// likely to die again (a bad file, a dependency down): each such death doubles the wait, up to a
// ceiling, so a crash loop costs little. One that ran for a while is replaced at once.
export const STABLE_AFTER_MS = 10_000;
const FIRST_DELAY_MS = 250;
const MAX_DELAY_MS = 30_000;

export class RestartBackoff {
  #quickExits = 0;

  /** Records an exit after `livedMs` of life; returns how long to wait before the next start. */
  exited(livedMs: number): number {
    this.#quickExits = livedMs < STABLE_AFTER_MS ? this.#quickExits + 1 : 0;
    if (this.#quickExits === 0) return 0;
    return Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** (this.#quickExits - 1));
  }
}
