// One figure: a warm-up run, then the measured run with the CPU time of the processes under test
// read from /proc before and after it, and their resident memory sampled throughout.
import { cpuSeconds } from './cpu.js';
import type { LoadGenerator, LoadResult, LoadTarget } from './load-target.js';
import { sampleRss } from './rss.js';

export interface FigureTarget extends Omit<LoadTarget, 'headerSets'> {
  /** Makes `count` pre-signed header sets (fresh nonces), for a target that needs them. */
  presign?: (count: number) => Record<string, string>[];
}

export interface FigureOptions {
  generator: LoadGenerator;
  seconds: number;
  warmupSeconds: number;
  connections: number;
  /** The processes under test (a cluster primary and its workers together). */
  pids: readonly number[];
  /** Processes that serve the target beside it (Redis), reported apart. */
  sidePids?: readonly number[];
}

export interface Figure extends LoadResult {
  /** CPU time of the processes under test per response, in microseconds. */
  cpuUsPerRequest: number;
  /** CPU time of the side processes per response, in microseconds, when there are any. */
  sideCpuUsPerRequest: number | undefined;
  /** Peak resident memory of the processes under test, warm-up included. */
  rssBytes: number;
}

/** Pre-signed sets for the warm-up: more than any target here serves a second. */
const WARMUP_SETS_PER_SECOND = 10_000;
/**
 * The measured run gets twice the warm-up's rate, plus a fixed margin: the warm-up runs on a cold
 * JIT and on a shared machine, and the measured run has been seen 40% faster than it.
 */
const POOL_MARGIN = 2;
const POOL_EXTRA = 2000;

export async function measureFigure(target: FigureTarget, options: FigureOptions): Promise<Figure> {
  const { presign, ...request } = target;
  const run = { seconds: options.seconds, connections: options.connections };
  const rss = sampleRss(options.pids);
  try {
    const warmup = await options.generator.run(
      { ...request, ...(presign ? { headerSets: presign(WARMUP_SETS_PER_SECOND * options.warmupSeconds) } : {}) },
      { ...run, seconds: options.warmupSeconds },
    );
    const measured: LoadTarget = {
      ...request,
      ...(presign ? { headerSets: presign(Math.ceil(warmup.requestsPerSecond * options.seconds * POOL_MARGIN) + POOL_EXTRA) } : {}),
    };
    const before = cpuSeconds(options.pids);
    const sideBefore = cpuSeconds(options.sidePids ?? []);
    const result = await options.generator.run(measured, run);
    const perRequest = (seconds: number) => (seconds * 1e6) / Math.max(result.requests, 1);
    return {
      ...result,
      cpuUsPerRequest: perRequest(cpuSeconds(options.pids) - before),
      sideCpuUsPerRequest: options.sidePids?.length ? perRequest(cpuSeconds(options.sidePids) - sideBefore) : undefined,
      rssBytes: rss.stop(),
    };
  } finally {
    // A failed run stops sampling too.
    rss.stop();
  }
}
