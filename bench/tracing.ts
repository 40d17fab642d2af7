// The cost of tracing on the proxied Bearer route, three rows measured one after the other (the
// machine's speed swings between runs, so compare them within one): tracing off; on and unsampled
// (always_off: a span's ids are made for the log line and the upstream's traceparent, nothing is
// recorded); on and sampled (always_on: a server and a client span per request, batched and
// exported over OTLP/HTTP protobuf to a local sink that discards them, bench/otlp-sink.ts, in its
// own process). Each tracing setting is read at start: a gateway process of its own for each. Each
// row is the least CPU per request of its rounds (the rounds interleave the three).
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

/** Rounds of the three figures, interleaved: each row keeps its round with the least CPU per request. */
const ROUNDS = 3;

interface Started {
  readonly gateway: Gateway;
  readonly target: FigureTarget;
}

async function started(bench: TracingBench, mode: (typeof MODES)[number], sink: string): Promise<Started> {
  const gateway = await startGateway({
    upstream: bench.upstream,
    dataDir: bench.dataDir(`tracing-${mode.name}`),
    redisPrefix: bench.redisPrefix,
    workers: 1,
    env: { ...mode.env, OTEL_EXPORTER_OTLP_ENDPOINT: sink, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' },
  });
  const { token } = await createClient(gateway);
  return { gateway, target: { url: gateway.url + bench.path, headers: { authorization: `Bearer ${token}` } } };
}

/**
 * The three rows, each compared with tracing off. The three gateways run side by side (idle but for
 * the one measured) and are measured in turn, ROUNDS times: a swing in the machine's load then
 * falls on every row alike rather than on one.
 */
export async function tracingRows(bench: TracingBench): Promise<Row[]> {
  const sinkPort = await freePort();
  const sink = await startProcess(['dist/bench/otlp-sink.js', String(sinkPort)], {}, 'listening');
  const gateways: Started[] = [];
  try {
    for (const mode of MODES) gateways.push(await started(bench, mode, `http://127.0.0.1:${sinkPort}`));
    const best: (Figure | undefined)[] = MODES.map(() => undefined);
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [i, mode] of MODES.entries()) {
        const { gateway, target } = gateways[i]!;
        const figure = await bench.figure(`gateway Bearer route, tracing ${mode.name} (round ${round} of ${ROUNDS})`, target, processTree(gateway.pid));
        if (best[i] === undefined || figure.cpuUsPerRequest < best[i].cpuUsPerRequest) best[i] = figure;
      }
    }
    const off = best[0]!;
    return MODES.map((mode, i) => {
      const figure = best[i]!;
      const added = figure.cpuUsPerRequest - off.cpuUsPerRequest;
      return {
        scenario: mode.scenario,
        figure,
        ...(i === 0
          ? {}
          : {
              comparison: `vs off: CPU ${ratio(figure.cpuUsPerRequest / off.cpuUsPerRequest)} (${added >= 0 ? '+' : ''}${added.toFixed(1)} µs/req), req/s ${ratio(figure.requestsPerSecond / off.requestsPerSecond)}`,
            }),
      };
    });
  } finally {
    for (const { gateway } of gateways) await gateway.stop();
    await stopProcess(sink);
  }
}
