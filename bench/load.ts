// autocannon: the load generator when wrk is not installed, and the fixed-rate latency runs
// (autocannon paces requests with overallRate; wrk cannot).
import autocannon from 'autocannon';
import type { LoadGenerator, LoadResult, LoadTarget } from './load-target.js';

export interface AutocannonOptions {
  seconds: number;
  connections: number;
  /** Requests per second over all connections; unset: as fast as the target answers. */
  overallRate?: number;
}

type Request = { method: string; path: string; headers: Record<string, string>; body?: string };

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export async function runAutocannon(target: LoadTarget, options: AutocannonOptions): Promise<LoadResult> {
  const sets = target.headerSets;
  let sent = 0;
  // Each pre-signed set once; past the end they repeat (replays, refused), and are counted.
  const setupRequest = (request: Request): Request => ({ ...request, headers: { ...request.headers, ...sets![sent++ % sets!.length] } });
  // autocannon's own histogram has 1 ms buckets, too coarse beside sub-millisecond latencies: the
  // percentiles come from each 2xx response's time instead (fractional milliseconds).
  const latencies: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: target.url,
        method: target.method ?? 'GET',
        headers: target.headers ?? {},
        ...(target.body !== undefined ? { body: target.body } : {}),
        ...(sets ? { requests: [{ setupRequest: setupRequest as never }] } : {}),
        ...(options.overallRate ? { overallRate: options.overallRate } : {}),
        duration: options.seconds,
        connections: options.connections,
      },
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a non-Error failure of unknown kind, shown as best we can
      (error: unknown, done: autocannon.Result) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(done)),
    );
    instance.on('response', (_client, statusCode, _bytes, milliseconds) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(milliseconds);
    });
  });
  latencies.sort((a, b) => a - b);
  return {
    requests: result.requests.total,
    requestsPerSecond: result.requests.total / result.duration,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    poolExhausted: sets ? Math.max(0, sent - sets.length) : 0,
  };
}

export const autocannonGenerator: LoadGenerator = {
  name: 'autocannon',
  run: (target, options) => runAutocannon(target, options),
};
