// A span exporter that says when exports fail: OpenTelemetry reports a failed batch only to its
// global diagnostics logger, silent unless set, so an unreachable collector would go unnoticed. One
// warning per interval at most, counting the batches lost since the last one.
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';

export interface ExportFailureLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

const WARN_INTERVAL_MS = 60_000;

export class ReportedExporter implements SpanExporter {
  private failed = 0;
  private lastWarning = -Infinity;

  constructor(
    private readonly exporter: SpanExporter,
    private readonly log: ExportFailureLog,
    private readonly now: () => number = performance.now.bind(performance),
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.exporter.export(spans, (result) => {
      if (result.code !== ExportResultCode.SUCCESS) this.report(result.error, spans.length);
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.exporter.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.exporter.forceFlush?.() ?? Promise.resolve();
  }

  private report(error: Error | undefined, spans: number): void {
    this.failed += 1;
    const now = this.now();
    if (now - this.lastWarning < WARN_INTERVAL_MS) return;
    this.lastWarning = now;
    this.log.warn({ event: 'trace_export_failed', batches: this.failed, spans, error: error?.message }, 'spans could not be exported (OTLP); they are dropped');
    this.failed = 0;
  }
}
