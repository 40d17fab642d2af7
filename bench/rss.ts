// Resident memory of the processes under test: VmRSS from /proc/<pid>/status, sampled while a
// figure runs, the peak of the sum over the processes kept.
import { readFileSync } from 'node:fs';

const SAMPLE_EVERY_MS = 200;

function residentBytes(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

export interface RssSampler {
  /** Stops sampling (once; later calls only repeat the answer); the peak in bytes. */
  stop(): number;
}

export function sampleRss(pids: readonly number[]): RssSampler {
  let peak = 0;
  const sample = () => {
    peak = Math.max(
      peak,
      pids.reduce((sum, pid) => sum + residentBytes(pid), 0),
    );
  };
  sample();
  let timer: NodeJS.Timeout | undefined = setInterval(sample, SAMPLE_EVERY_MS);
  return {
    stop() {
      if (timer !== undefined) {
        clearInterval(timer);
        timer = undefined;
        sample();
      }
      return peak;
    },
  };
}
