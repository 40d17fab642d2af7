// CPU time of the processes under test, from /proc: utime + stime of each process (all its
// threads, so libuv's pool and V8's GC threads count too), summed over a process and its children
// (the workers of a cluster primary).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat (sysconf(_SC_CLK_TCK), 100 on every usual kernel). */
export const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** utime + stime of one process in ticks; 0 once it is gone (it then used nothing more). */
function processTicks(pid: number): number {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return 0;
  }
  // The command name may contain spaces and parentheses: fields are counted after its last ')'.
  // The fields from there start at field 3 (state); utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** The direct children of a process, from every one of its threads. */
export function childPids(pid: number): number[] {
  const children: number[] = [];
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      if (text !== '') children.push(...text.split(' ').map(Number));
    }
  } catch {
    // Gone: no children to count.
  }
  return children;
}

/** A process and all its descendants. */
export function processTree(pid: number): number[] {
  return [pid, ...childPids(pid).flatMap(processTree)];
}

/** CPU seconds used so far by the given processes. */
export function cpuSeconds(pids: readonly number[]): number {
  return pids.reduce((sum, pid) => sum + processTicks(pid), 0) / CLOCK_TICKS;
}
