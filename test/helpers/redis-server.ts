// A redis-server of the test's own, on a free loopback port, for outages the shared test Redis
// (TEST_REDIS_URL) must never see: hanging it (SIGSTOP), stopping and restarting it, flushing it,
// other persistence settings. Stopped (and its directory removed) when the test ends, or when the
// test process is interrupted.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { Test } from 'tap';
import { freePort } from '../../bench/processes.js';
import { killOnInterrupt, removeOnInterrupt } from './interrupt-cleanup.js';

export interface OwnRedis {
  port: number;
  url: string;
  /** Starts the server (again, on the same port; empty unless its persistence kept data). */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** SIGSTOP: the server keeps its connections but answers nothing, as a hung Redis. */
  hang(): void;
  /** SIGCONT. */
  resume(): void;
  /** Runs one command on a short-lived connection of its own (FLUSHALL, CONFIG SET, ...). */
  command(name: string, ...args: string[]): Promise<unknown>;
}

export interface OwnRedisOptions {
  /** Persistence and other redis-server arguments; default none at all (--appendonly no --save ""). */
  args?: string[];
  /** Reserve the port but do not start the server yet. */
  started?: boolean;
}

export async function startRedisServer(t: Test, options: OwnRedisOptions = {}): Promise<OwnRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'gateway-redis-'));
  const forgetDir = removeOnInterrupt(dir);
  const args = options.args ?? ['--appendonly', 'no', '--save', ''];
  let child: ChildProcess | undefined;

  const start = async () => {
    if (child) return;
    const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--daemonize', 'no', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: false,
    });
    killOnInterrupt(server);
    child = server;
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${output}`)), 10_000);
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      };
      server.stdout.on('data', onData);
      server.stderr.on('data', onData);
      server.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited with ${code}:\n${output}`));
      });
    });
    server.stdout.resume();
    server.stderr.resume();
  };

  const stop = async () => {
    const server = child;
    child = undefined;
    if (!server || server.exitCode !== null || server.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      server.once('exit', () => resolve());
      server.kill('SIGCONT');
      server.kill('SIGKILL');
    });
  };

  t.teardown(async () => {
    await stop();
    rmSync(dir, { recursive: true, force: true });
    forgetDir();
  });
  if (options.started !== false) await start();

  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    start,
    stop,
    hang: () => void child?.kill('SIGSTOP'),
    resume: () => void child?.kill('SIGCONT'),
    async command(name, ...commandArgs) {
      const redis = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0 });
      try {
        await redis.connect();
        return await redis.call(name, ...commandArgs);
      } finally {
        redis.disconnect();
      }
    },
  };
}
