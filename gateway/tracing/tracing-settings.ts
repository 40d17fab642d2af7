// The tracing part of the settings: where spans go, in which OTLP encoding, and which traces are
// kept. gateway/config/otel-variables.ts reads it from OpenTelemetry's own variables at start;
// Settings.tracing is null when tracing is off.

/** OTEL_TRACES_EXPORTER: none (or unset) is off. */
export const TRACES_EXPORTERS = ['otlp', 'none'] as const;

/** OTLP over HTTP only: grpc would need a second transport for the same spans. */
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

/** The specification's samplers that need nothing outside the process. */
export const TRACES_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
export type TracesSampler = (typeof TRACES_SAMPLERS)[number];

/** The samplers that read OTEL_TRACES_SAMPLER_ARG as the share of new traces kept. */
export const RATIO_SAMPLERS: ReadonlySet<TracesSampler> = new Set<TracesSampler>(['traceidratio', 'parentbased_traceidratio']);

export const DEFAULT_SERVICE_NAME = 'access-gateway';

export interface TracingSettings {
  /** The full URL spans are POSTed to (…/v1/traces). */
  readonly endpoint: string;
  readonly protocol: OtlpProtocol;
  readonly sampler: TracesSampler;
  /** 0 to 1: the share of new traces a ratio sampler keeps (1 for the others, which ignore it). */
  readonly ratio: number;
  /** service.name of every span. */
  readonly serviceName: string;
}
