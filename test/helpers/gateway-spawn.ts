// The gateway as a real process, for tests of what a start does: a refused one run to its exit (runGatewayToExit), or one left running
// (gateway-process.ts). Killed, with whatever it started, if the test process is interrupted, and
// when a run outlasts its time limit.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { descendantsOf, killOnInterrupt } from './interrupt-cleanup.js';
import { REPO_ROOT } from './repo-root.js';

/** Generous: a start from source compiles the gateway through tsx, slowly on a machine busy with the suite. */
export const GATEWAY_START_LIMIT_MS = 60_000;

/**
 * What runs: in the compiled suite (`npm test`, .tap/build/) the gateway compiled beside this helper
 * from the same sources, as `npm start` runs dist/; run from source, gateway/main.ts through tsx.
 */
const COMPILED_MAIN = fileURLToPath(new URL('../../gateway/main.js', import.meta.url));
const MAIN = existsSync(COMPILED_MAIN) ? [COMPILED_MAIN] : ['--import', 'tsx', `${REPO_ROOT}gateway/main.ts`];

export interface SpawnedGateway {
  readonly child: ChildProcessByStdio<null, Readable, Readable>;
  /** What it wrote to stdout so far. */
  readonly stdout: () => string;
  /** What it wrote to stderr so far. */
  readonly stderr: () => string;
  /** Both, in the order they arrived. */
  readonly output: () => string;
}

export interface SpawnOptions {
  /** Its own process group, as a terminal would start it (kill(-pid) signals every process in it). */
  readonly detached?: boolean;
}

/**
 * Starts the gateway with PATH, HOME, listeners on 127.0.0.1, a Redis command timeout that survives
 * the stalls of a machine busy with the suite (production's 250 ms does not), and `env` (nothing else
 * of this process's environment; `env` may set any of these).
 */
export function spawnGateway(env: NodeJS.ProcessEnv, options: SpawnOptions = {}): SpawnedGateway {
  const detached = options.detached ?? false;
  const child = spawn(process.execPath, MAIN, {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, GATEWAY_HOST: '127.0.0.1', GATEWAY_REDIS_COMMAND_TIMEOUT_MS: '2000', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached,
  });
  killOnInterrupt(child, { group: detached });
  let stdout = '';
  let stderr = '';
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    output += chunk.toString();
  });
  return { child, stdout: () => stdout, stderr: () => stderr, output: () => output };
}

export interface GatewayExit {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout and stderr, in the order they arrived. */
  readonly output: string;
}

/**
 * Runs gateway/main.ts until it exits (a start that is refused). One that has not exited within
 * `limitMs` is killed, with what it started, and the run fails with what it wrote.
 */
export function runGatewayToExit(env: NodeJS.ProcessEnv, limitMs = GATEWAY_START_LIMIT_MS): Promise<GatewayExit> {
  const gateway = spawnGateway(env);
  const { child } = gateway;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      for (const pid of [child.pid!, ...descendantsOf(child.pid!)]) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Gone already.
        }
      }
      reject(new Error(`the gateway (pid ${child.pid}) did not exit within ${limitMs} ms (killed); it wrote:\n${gateway.output()}`));
    }, limitMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    // 'close': the pipes are drained, so everything it wrote is in.
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: gateway.stdout(), stderr: gateway.stderr(), output: gateway.output() });
    });
  });
}
