// The tracing layer on its own: a stop waits for the last batch only so long (a collector that
// never answers cannot hold a gateway's shutdown), and a failing exporter is reported in the log,
// once per interval, with the batches lost since.
import t from 'tap';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { ReportedExporter } from '../../gateway/tracing/reported-exporter.js';
import { startTracing } from '../../gateway/tracing/tracing.js';
import type { TracingSettings } from '../../gateway/tracing/tracing-settings.js';

const SETTINGS: TracingSettings = { endpoint: 'http://127.0.0.1:1/v1/traces', protocol: 'http/json', sampler: 'always_on', ratio: 1, serviceName: 'test' };

/** An exporter that takes batches and does not answer, as a hung collector would, until told to. */
class HungExporter implements SpanExporter {
  readonly batches: ReadableSpan[][] = [];
  private readonly pending: ((result: ExportResult) => void)[] = [];
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.batches.push(spans);
    this.pending.push(done);
  }
  shutdown(): Promise<void> {
    return new Promise(() => undefined);
  }
  /** Answers at last: the batch processor's own export timer is cleared, and the test process may end. */
  answer(): void {
    for (const done of this.pending.splice(0)) done({ code: ExportResultCode.FAILED });
  }
}

t.test('shutdown hands the ended spans to the exporter and returns within its bound though the exporter hangs', async (t) => {
  const exporter = new HungExporter();
  t.teardown(() => exporter.answer());
  const tracing = startTracing(SETTINGS, { version: '0', log: { warn: () => undefined }, exporter });
  const server = tracing.startServerSpan('GET', {});
  tracing.startClientSpan(server, 'GET').end();
  server.end();
  const started = performance.now();
  await tracing.shutdown(200);
  t.ok(performance.now() - started < 5000, 'returned, bounded');
  t.equal(exporter.batches.flat().length, 2, 'the ended spans were flushed to the exporter');
});

t.test('a failing export is logged once per minute, with what was lost since', async (t) => {
  let now = 0;
  const warnings: Record<string, unknown>[] = [];
  const failing: SpanExporter = {
    export: (_spans, done: (result: ExportResult) => void) => done({ code: ExportResultCode.FAILED, error: new Error('connect ECONNREFUSED') }),
    shutdown: async () => undefined,
  };
  const exporter = new ReportedExporter(failing, { warn: (fields) => warnings.push(fields) }, () => now);
  const results: ExportResult[] = [];
  const batch = [{} as ReadableSpan, {} as ReadableSpan];
  exporter.export(batch, (result) => results.push(result));
  now = 30_000;
  exporter.export(batch, (result) => results.push(result));
  exporter.export(batch, (result) => results.push(result));
  now = 61_000;
  exporter.export(batch, (result) => results.push(result));
  t.equal(results.length, 4, 'every result handed on');
  t.ok(results.every((result) => result.code === ExportResultCode.FAILED));
  t.same(warnings, [
    { event: 'trace_export_failed', batches: 1, spans: 2, error: 'connect ECONNREFUSED' },
    { event: 'trace_export_failed', batches: 3, spans: 2, error: 'connect ECONNREFUSED' },
  ]);
});
