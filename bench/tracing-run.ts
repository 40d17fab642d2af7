// npm run bench:tracing: the tracing rows of the bench alone (bench/tracing.ts), with the bench's
// own upstream, load generator and measurement, for a figure without the whole bench's 10 minutes.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { autocannonGenerator } from './load.js';
import type { LoadGenerator } from './load-target.js';
import { measureFigure } from './measure.js';
import { freePort, startProcess, stopProcess } from './processes.js';
import { deleteRedisPrefix } from './redis.js';
import { printTable } from './table.js';
import { tracingRows } from './tracing.js';
import { wrk, wrkInstalled } from './wrk.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARMUP_SECONDS = 2;
const CONNECTIONS = 32;
const PATH = '/v1/sales/42';
const generator: LoadGenerator = wrkInstalled() && process.env.BENCH_LOAD_GENERATOR !== 'autocannon' ? wrk : autocannonGenerator;

const REDIS_URL = process.env.REDIS_URL;
const redisPrefix = `bench:tracing:${process.pid}:`;
const root = mkdtempSync(join(tmpdir(), 'gateway-bench-tracing-'));
const upstreamPort = await freePort();
const upstreamProcess = await startProcess(['dist/bench/echo-upstream.js', String(upstreamPort)], {}, 'listening');
try {
  const rows = await tracingRows({
    upstream: `http://127.0.0.1:${upstreamPort}`,
    redisPrefix,
    path: PATH,
    dataDir: (name) => {
      const dir = join(root, name);
      mkdirSync(dir);
      return dir;
    },
    figure: (name, target, pids) => {
      console.error(`[bench] ${name}`);
      return measureFigure(target, { generator, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, connections: CONNECTIONS, pids });
    },
  });
  printTable(
    [
      `store: ${REDIS_URL ? 'redis' : 'embedded'}; load: ${generator.name}, ${CONNECTIONS} connections; each figure ${SECONDS} s after a ${WARMUP_SECONDS} s warm-up`,
      `node ${process.versions.node}, ${availableParallelism()} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'})`,
    ],
    [{ section: `GET ${PATH}, Bearer, OpenTelemetry tracing` }, ...rows],
    ['CPU µs/req: utime + stime (/proc/<pid>/stat, every thread) of the gateway process over the measured run, divided by the responses it gave.'],
  );
} finally {
  await stopProcess(upstreamProcess);
  rmSync(root, { recursive: true, force: true });
  if (REDIS_URL) await deleteRedisPrefix(REDIS_URL, redisPrefix);
}
