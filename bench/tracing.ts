// The cost of tracing on the proxied Bearer route, three rows measured one after the other (the
// machine's speed swings between runs, so compare them within one): tracing off; on and unsampled
// (always_off: a span's ids are made for the log line and the upstream's traceparent, nothing is
// recorded); on and sampled (always_on: a server and a client span per request, batched and
// exported over OTLP/HTTP protobuf to a local sink that discards them, bench/otlp-sink.ts, in its
// own process). Each tracing setting is read at start: a gateway process of its own for each.
import type { Figure, FigureTarget } from './measure.js';
import { createClient, startGateway, type Gateway } from './gateway.js';
import { processTree } from './cpu.js';
import { freePort, startProcess, stopProcess } from './processes.js';
import { ratio, type Row } from './table.js';

export interface TracingBench {
  /** The echo upstream's URL. */
  readonly upstream: string;
  readonly redisPrefix: string;
  /** A fresh data directory. */
  dataDir(name: string): string;
  /** Measures one figure of the processes given. */
  figure(name: string, target: FigureTarget, pids: readonly number[]): Promise<Figure>;
  /** The route measured, e.g. /v1/sales/42. */
  readonly path: string;
}

const MODES = [
  { name: 'off', scenario: 'gateway: Bearer route, tracing off', env: {} },
  {
    name: 'unsampled',
    scenario: 'gateway: Bearer route, tracing on, unsampled (always_off)',
    env: { OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER: 'always_off' },
  },
  {
    name: 'sampled',
    scenario: 'gateway: Bearer route, tracing on, sampled, exported (always_on)',
    env: { OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER: 'always_on' },
  },
] as const;

async function measured(bench: TracingBench, mode: (typeof MODES)[number], sink: string): Promise<Figure> {
  const gateway: Gateway = await startGateway({
    upstream: bench.upstream,
    dataDir: bench.dataDir(`tracing-${mode.name}`),
    redisPrefix: bench.redisPrefix,
    workers: 1,
    env: { ...mode.env, OTEL_EXPORTER_OTLP_ENDPOINT: sink, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' },
  });
  try {
    const { token } = await createClient(gateway);
    return await bench.figure(
      `gateway Bearer route, tracing ${mode.name}`,
      { url: gateway.url + bench.path, headers: { authorization: `Bearer ${token}` } },
      processTree(gateway.pid),
    );
  } finally {
    await gateway.stop();
  }
}

/** The three rows, each compared with tracing off. */
export async function tracingRows(bench: TracingBench): Promise<Row[]> {
  const sinkPort = await freePort();
  const sink = await startProcess(['dist/bench/otlp-sink.js', String(sinkPort)], {}, 'listening');
  try {
    const rows: Row[] = [];
    let off: Figure | undefined;
    for (const mode of MODES) {
      const figure = await measured(bench, mode, `http://127.0.0.1:${sinkPort}`);
      off ??= figure;
      const added = figure.cpuUsPerRequest - off.cpuUsPerRequest;
      rows.push({
        scenario: mode.scenario,
        figure,
        ...(figure === off
          ? {}
          : {
              comparison: `vs off: CPU ${ratio(figure.cpuUsPerRequest / off.cpuUsPerRequest)} (${added >= 0 ? '+' : ''}${added.toFixed(1)} µs/req), req/s ${ratio(figure.requestsPerSecond / off.requestsPerSecond)}`,
            }),
      });
    }
    return rows;
  } finally {
    await stopProcess(sink);
  }
}
