// The pid to signal, for operators and supervisors: `npm start` runs node under npm and a shell,
// so the pid of what one started is not the gateway's (and npm dies of a SIGHUP it does not relay).
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** Writes this process's pid to `path`; the file is removed at exit unless another process took it over. */
export function writePidFile(path: string): void {
  mkdirSync(dirname(path), { recursive: true });
  // Written aside, then renamed: a reader sees no file or the whole pid, never an empty file.
  writeFileSync(`${path}.${process.pid}`, `${process.pid}\n`);
  renameSync(`${path}.${process.pid}`, path);
  process.once('exit', () => {
    try {
      if (readFileSync(path, 'utf8').trim() === String(process.pid)) rmSync(path);
    } catch {
      // Already gone.
    }
  });
}
