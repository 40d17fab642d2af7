// The process's one log destination: standard output, written once per turn of the event loop.
// pino's destinations (each listener had its own) wrote about a line a write: a system call per
// request at the default level, which on a virtual machine cost more than the rest of a decision
// (BENCHMARKS.md). Here the lines made in one turn (the requests that finished in it) leave
// together when the turn ends: a line waits less than a turn, never for a timer; a turn's lines past
// MAX_HELD_LENGTH go at once; whatever is held is written before the process exits (an exit after an
// uncaught error too). Only a SIGKILL in the middle of a turn loses its lines.
// Each write is whole lines of at most ATOMIC_WRITE_BYTES (a longer line alone): a pipe keeps a
// write that size in one piece, so the lines of workers sharing standard output never interleave.
// The write is synchronous (fd-writer.ts): a log reader that stops reading holds the process up,
// rather than lines (audit lines among them) piling up in memory or being dropped.
import type { DestinationStream } from 'pino';
import { fdWriter } from './fd-writer.js';

/** The characters one turn may hold before it writes anyway (a burst of lines at start, a flood of refusals). */
const MAX_HELD_LENGTH = 64 * 1024;
/** PIPE_BUF on Linux: the largest write a pipe never splits. */
export const ATOMIC_WRITE_BYTES = 4096;

/** Every destination's flush, run by one exit listener. */
const flushedOnExit = new Set<() => void>();

export interface TurnBufferedDestination extends DestinationStream {
  /** Writes what is held now. */
  flush(): void;
}

/** @param target where the lines go (standard output, synchronously, by default). */
export function turnBufferedDestination(target: DestinationStream = fdWriter(1)): TurnBufferedDestination {
  let held: string[] = [];
  let heldLength = 0;
  let scheduled = false;
  const flush = (): void => {
    const lines = held;
    held = [];
    heldLength = 0;
    let batch = '';
    let bytes = 0;
    for (const line of lines) {
      const size = Buffer.byteLength(line);
      if (batch !== '' && bytes + size > ATOMIC_WRITE_BYTES) {
        target.write(batch);
        batch = '';
        bytes = 0;
      }
      batch += line;
      bytes += size;
    }
    if (batch !== '') target.write(batch);
  };
  // The turn's end writes what is left, also after a write the 64 Ki made early: one pending at a time.
  const flushAtTurnEnd = (): void => {
    scheduled = false;
    flush();
  };
  if (flushedOnExit.size === 0) process.once('exit', () => flushedOnExit.forEach((flushHeld) => flushHeld()));
  flushedOnExit.add(flush);
  return {
    write(line: string): void {
      held.push(line);
      heldLength += line.length;
      if (heldLength >= MAX_HELD_LENGTH) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flushAtTurnEnd);
      }
    },
    flush,
  };
}
