// Tracing when it is on: one tracer provider per gateway (tests build many; nothing is registered
// globally), spans made by hand on the request path (auto-instrumentation costs every request,
// sampled or not), a batch span processor and the OTLP/HTTP exporter. Contexts are passed
// explicitly, never through a context manager. When tracing is off none of this exists: the
// listeners and the proxy are built without it (gateway/app.ts).
import type { IncomingHttpHeaders } from 'node:http';
import { defaultTextMapGetter, defaultTextMapSetter, ROOT_CONTEXT, SpanKind, trace, type Span, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace';
import { otlpExporter } from './otlp-exporter.js';
import { ReportedExporter, type ExportFailureLog } from './reported-exporter.js';
import { samplerOf } from './sampler.js';
import type { TracingSettings } from './tracing-settings.js';

export interface Tracing {
  /** A request's SERVER span, continuing the trace its traceparent names (a parent-based sampler follows that parent's decision). */
  startServerSpan(name: string, headers: IncomingHttpHeaders): Span;
  /** A CLIENT span under `parent`, for a call the request makes. */
  startClientSpan(parent: Span, name: string): Span;
  /** Sets traceparent (and tracestate) naming `span` as the parent, replacing whatever the headers had. */
  propagate(span: Span, headers: IncomingHttpHeaders): void;
  /** Stops tracing: the spans ended so far are exported, waiting at most timeoutMs. */
  shutdown(timeoutMs: number): Promise<void>;
}

export interface TracingOptions {
  /** service.version. */
  readonly version: string;
  /** Where failed exports are reported. */
  readonly log: ExportFailureLog;
  /** Instead of OTLP (tests). */
  readonly exporter?: SpanExporter;
}

/** How long one batch may take to export, and how long spans wait to fill one. */
const EXPORT_TIMEOUT_MS = 10_000;
const SCHEDULED_DELAY_MS = 1000;

class OpenTelemetryTracing implements Tracing {
  private readonly propagator = new W3CTraceContextPropagator();
  private readonly tracer: Tracer;

  constructor(private readonly provider: TracerProvider) {
    this.tracer = provider.getTracer('access-gateway');
  }

  startServerSpan(name: string, headers: IncomingHttpHeaders): Span {
    const parent = this.propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
    return this.tracer.startSpan(name, { kind: SpanKind.SERVER }, parent);
  }

  startClientSpan(parent: Span, name: string): Span {
    return this.tracer.startSpan(name, { kind: SpanKind.CLIENT }, trace.setSpan(ROOT_CONTEXT, parent));
  }

  propagate(span: Span, headers: IncomingHttpHeaders): void {
    // A client's tracestate belongs to its traceparent: neither outlives the replacement. Deleted
    // only when present: a deletion turns the headers object into a slower dictionary.
    if (headers.traceparent !== undefined) delete headers.traceparent;
    if (headers.tracestate !== undefined) delete headers.tracestate;
    this.propagator.inject(trace.setSpan(ROOT_CONTEXT, span), headers, defaultTextMapSetter);
  }

  async shutdown(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
      timer.unref();
    });
    try {
      await Promise.race([this.provider.shutdown().catch(() => undefined), late]);
    } finally {
      clearTimeout(timer);
    }
  }
}

export function startTracing(settings: TracingSettings, options: TracingOptions): Tracing {
  const exporter = new ReportedExporter(options.exporter ?? otlpExporter(settings), options.log);
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': settings.serviceName, 'service.version': options.version }),
    sampler: samplerOf(settings),
    spanProcessors: [new BatchSpanProcessor({ exporter, exportTimeoutMillis: EXPORT_TIMEOUT_MS, scheduledDelayMillis: SCHEDULED_DELAY_MS })],
  });
  return new OpenTelemetryTracing(provider);
}
