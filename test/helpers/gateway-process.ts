// Runs the gateway as a real process (gateway/main.ts through tsx), as `npm start` would, for
// tests of process-level behaviour: signals, several instances, the README walkthrough. Killed
// (with its workers) if the test process is interrupted before its teardown.
import type { ChildProcess } from 'node:child_process';
import type { Test } from 'tap';
import { freePort } from '../../bench/processes.js';
import { GATEWAY_START_LIMIT_MS, spawnGateway } from './gateway-spawn.js';

export { freePort };

export interface GatewayProcess {
  child: ChildProcess;
  port: number;
  adminPort: number;
  publicUrl: string;
  adminUrl: string;
  /** Everything the process wrote so far (JSON log lines). */
  output(): string;
  stop(): Promise<void>;
}

export interface GatewayProcessOptions {
  /** Fixed ports (a restart on the same address); free ones by default. */
  port?: number;
  adminPort?: number;
  /** Its own process group, as a terminal would start it (kill(-pid) signals every process in it). */
  detached?: boolean;
}

/** Starts with fresh ports this many times when one of the two it chose was taken meanwhile. */
const PORT_ATTEMPTS = 3;

/**
 * Starts gateway/main.ts with the given environment and waits for "gateway started". The drain on
 * stop is off unless the environment sets GATEWAY_SHUTDOWN_DRAIN_SECONDS, so teardown stays quick.
 */
export async function startGatewayProcess(t: Test, env: NodeJS.ProcessEnv, options: GatewayProcessOptions = {}): Promise<GatewayProcess> {
  for (let attempt = 1; ; attempt++) {
    const port = options.port ?? (await freePort());
    const adminPort = options.adminPort ?? (await freePort());
    try {
      return await startOnce(t, env, options, port, adminPort);
    } catch (error) {
      // A port found free can be bound by another test's process before this one binds it: the
      // gateway refuses to start naming it, and gets fresh ports (never a fixed one).
      const taken = /(GATEWAY_PORT|GATEWAY_ADMIN_PORT): .* already in use/.exec(String(error))?.[1];
      const chosen = taken === 'GATEWAY_PORT' ? options.port === undefined : taken === 'GATEWAY_ADMIN_PORT' && options.adminPort === undefined;
      if (attempt >= PORT_ATTEMPTS || !chosen) throw error;
    }
  }
}

async function startOnce(t: Test, env: NodeJS.ProcessEnv, options: GatewayProcessOptions, port: number, adminPort: number): Promise<GatewayProcess> {
  const detached = options.detached ?? false;
  const gateway = spawnGateway(
    { GATEWAY_PORT: String(port), GATEWAY_ADMIN_PORT: String(adminPort), GATEWAY_SHUTDOWN_DRAIN_SECONDS: '0', ...env },
    { detached },
  );
  const { child, output } = gateway;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5000).unref();
    });
  };
  t.teardown(stop);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway did not start within ${GATEWAY_START_LIMIT_MS} ms:\n${output()}`)), GATEWAY_START_LIMIT_MS);
    const check = () => {
      if (output().includes('gateway started')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited with ${code}:\n${output()}`));
    });
  });
  return { child, port, adminPort, publicUrl: `http://127.0.0.1:${port}`, adminUrl: `http://127.0.0.1:${adminPort}`, output, stop };
}
