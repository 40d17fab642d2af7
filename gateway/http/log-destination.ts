// The process's one log destination: standard output, written once per turn of the event loop.
// pino's destinations (each listener had its own) wrote about a line a write: a system call per
// request at the default level, which on a virtual machine cost more than the rest of a decision
// (BENCHMARKS.md). Here the lines made in one turn (the requests that finished in it) leave
// together in one write when the turn ends: a line waits less than a turn, never for a timer; a
// turn's lines past MAX_HELD_LENGTH go at once; whatever is held is written before the process exits
// (an exit after an uncaught error too). Only a SIGKILL in the middle of a turn loses its lines.
// The write is synchronous: a log reader that stops reading holds the process up, rather than lines
// (audit lines among them) piling up in memory or being dropped.
import pino, { type DestinationStream } from 'pino';

/** The characters one turn may hold before it writes anyway (a burst of lines at start, a flood of refusals). */
const MAX_HELD_LENGTH = 64 * 1024;

/** Every destination's flush, run by one exit listener. */
const flushedOnExit = new Set<() => void>();

export interface TurnBufferedDestination extends DestinationStream {
  /** Writes what is held now. */
  flush(): void;
}

/** @param target where the lines go (standard output, synchronously, by default). */
export function turnBufferedDestination(target: DestinationStream = pino.destination({ fd: 1, sync: true })): TurnBufferedDestination {
  let held = '';
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    if (held === '') return;
    const lines = held;
    held = '';
    target.write(lines);
  };
  if (flushedOnExit.size === 0) process.once('exit', () => flushedOnExit.forEach((flushHeld) => flushHeld()));
  flushedOnExit.add(flush);
  return {
    write(line: string): void {
      held += line;
      if (held.length >= MAX_HELD_LENGTH) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
  };
}
