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

/**
 * Starts gateway/main.ts with the given environment and waits for "gateway started". The drain on
 * stop is off unless the environment sets GATEWAY_SHUTDOWN_DRAIN_SECONDS, so teardown stays quick.
 */
export async function startGatewayProcess(t: Test, env: NodeJS.ProcessEnv, options: GatewayProcessOptions = {}): Promise<GatewayProcess> {
  const port = options.port ?? (await freePort());
  const adminPort = options.adminPort ?? (await freePort());
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
