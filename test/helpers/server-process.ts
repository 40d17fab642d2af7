// A server binary (nginx, Caddy) run for one test: its output kept for the failure message, stopped
// at teardown with its graceful signal (SIGKILL after 5 s), its directory removed, and awaited until
// it answers HTTP on its port. An interrupted test process kills it (nginx with its workers) and
// removes the directory on its way out.
import { spawn, type SpawnOptions } from 'node:child_process';
import { rmSync } from 'node:fs';
import type { Test } from 'tap';
import { killOnInterrupt, removeOnInterrupt } from './interrupt-cleanup.js';
import { until } from './poll.js';

export interface ServerProcess {
  command: string;
  args: string[];
  env?: SpawnOptions['env'];
  /** The signal that stops it gracefully (nginx: SIGQUIT, which also ends its workers). */
  stopSignal: NodeJS.Signals;
  /** Removed at teardown. */
  dir: string;
  /** Where it answers once started. */
  url: string;
  /** More to say when it exits early (nginx's error log). */
  diagnostics?: () => string;
}

export async function runServerProcess(t: Test, server: ServerProcess): Promise<void> {
  const forgetDir = removeOnInterrupt(server.dir);
  const child = spawn(server.command, server.args, { stdio: ['ignore', 'pipe', 'pipe'], detached: false, ...(server.env ? { env: server.env } : {}) });
  killOnInterrupt(child);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill(server.stopSignal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(server.dir, { recursive: true, force: true });
    forgetDir();
  });
  const name = server.command.split('/').pop();
  await until(
    async () => {
      if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}:\n${output}${server.diagnostics?.() ?? ''}`);
      return fetch(`${server.url}/`).then(
        () => true,
        () => false,
      );
    },
    `${name} listens`,
    10_000,
  );
}
