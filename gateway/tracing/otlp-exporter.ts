// The OTLP/HTTP exporter of a protocol: protobuf or JSON bodies POSTed to the endpoint. The URL is
// passed in (the settings resolved it from the OTEL variables); the exporter itself still honours
// OTEL_EXPORTER_OTLP_(TRACES_)HEADERS, _TIMEOUT, _COMPRESSION and the TLS file variables, read once
// when it is built.
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import type { TracingSettings } from './tracing-settings.js';

export function otlpExporter(settings: Pick<TracingSettings, 'endpoint' | 'protocol'>): SpanExporter {
  return settings.protocol === 'http/json' ? new JsonExporter({ url: settings.endpoint }) : new ProtobufExporter({ url: settings.endpoint });
}
