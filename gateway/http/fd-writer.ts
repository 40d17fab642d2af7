// Synchronous writes to a file descriptor (standard output) that wait out a full pipe in short
// sleeps. Node makes standard output non-blocking when it is a pipe, so a write meets EAGAIN
// whenever the reader (a container runtime, a log shipper) is a moment behind. pino's synchronous
// destination (sonic-boom) then sleeps 100 ms with the event loop stopped: at the default log level
// under load that froze the gateway in 100 ms steps (decisions' p99 at 103 ms, half the throughput;
// BENCHMARKS.md). Here a sleep is a millisecond, then two: a write goes on within about 2 ms of the
// reader catching up. It still waits for as long as that takes: a reader that stops reading holds
// the gateway up rather than lines piling up in memory or being dropped.
import { writeSync as fsWriteSync } from 'node:fs';
import type { DestinationStream } from 'pino';

const FIRST_SLEEP_MS = 1;
const MAX_SLEEP_MS = 2;

export interface FdWriterPrimitives {
  writeSync: (fd: number, buffer: Buffer, offset: number) => number;
  sleep: (ms: number) => void;
}

const pause = new Int32Array(new SharedArrayBuffer(4));
const SYSTEM: FdWriterPrimitives = {
  writeSync: (fd, buffer, offset) => fsWriteSync(fd, buffer, offset),
  sleep: (ms) => void Atomics.wait(pause, 0, 0, ms),
};

/** Refusals that mean "not now" (the ones sonic-boom retries too). */
function busy(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'EAGAIN' || code === 'EWOULDBLOCK' || code === 'EBUSY';
}

/** Writes each text whole before returning: a partial write goes on from where it stopped; any error but a full pipe throws. */
export function fdWriter(fd: number, system: FdWriterPrimitives = SYSTEM): DestinationStream {
  return {
    write(text: string): void {
      const buffer = Buffer.from(text, 'utf8');
      let offset = 0;
      let sleepMs = FIRST_SLEEP_MS;
      while (offset < buffer.length) {
        try {
          offset += system.writeSync(fd, buffer, offset);
          sleepMs = FIRST_SLEEP_MS;
        } catch (error) {
          if (!busy(error)) throw error;
          system.sleep(sleepMs);
          sleepMs = Math.min(sleepMs * 2, MAX_SLEEP_MS);
        }
      }
    },
  };
}
