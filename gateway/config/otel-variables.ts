// OpenTelemetry's own environment variables, read once at start into Settings.tracing (null: off).
// They are not GATEWAY_* settings: the same names configure every OpenTelemetry SDK, and they come
// from the environment only. Read only when OTEL_TRACES_EXPORTER=otlp, so that variables meant for
// other services' SDKs cannot stop a gateway that does not trace. Each invalid value is a problem
// naming its variable and what it accepts, reported with the other settings' problems.
import {
  DEFAULT_SERVICE_NAME,
  OTLP_PROTOCOLS,
  RATIO_SAMPLERS,
  TRACES_EXPORTERS,
  TRACES_SAMPLERS,
  type OtlpProtocol,
  type TracesSampler,
  type TracingSettings,
} from '../tracing/tracing-settings.js';
import { isGiven, url, ValueProblem } from './setting-kinds.js';
import type { Env } from './setting-reader.js';
import type { SettingProblem } from './settings-error.js';

const DEFAULT_ENDPOINT = 'http://localhost:4318';
const TRACES_PATH = 'v1/traces';
const ENDPOINT_URL = url(['http:', 'https:']);

/** Each variable, what it accepts and its default (docs/settings.md shows them). */
export const OTEL_VARIABLES = [
  { name: 'OTEL_TRACES_EXPORTER', allowed: TRACES_EXPORTERS.join(', '), default: 'none (tracing off)', description: 'otlp turns tracing on.' },
  {
    name: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    allowed: 'an http:// or https:// URL',
    default: DEFAULT_ENDPOINT,
    description: `The collector's base URL; spans go to its /${TRACES_PATH}.`,
  },
  {
    name: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    allowed: 'an http:// or https:// URL',
    default: `the base URL's /${TRACES_PATH}`,
    description: 'The full URL spans are sent to, as written; wins over OTEL_EXPORTER_OTLP_ENDPOINT.',
  },
  {
    name: 'OTEL_EXPORTER_OTLP_PROTOCOL',
    allowed: OTLP_PROTOCOLS.join(', '),
    default: 'http/protobuf',
    description: 'How spans are encoded (grpc is not supported); OTEL_EXPORTER_OTLP_TRACES_PROTOCOL wins over it.',
  },
  { name: 'OTEL_TRACES_SAMPLER', allowed: TRACES_SAMPLERS.join(', '), default: 'parentbased_traceidratio', description: 'Which traces are recorded and exported.' },
  {
    name: 'OTEL_TRACES_SAMPLER_ARG',
    allowed: '0 to 1',
    default: '1',
    description: 'The share of new traces kept by traceidratio and parentbased_traceidratio (ignored by the other samplers).',
  },
  { name: 'OTEL_SERVICE_NAME', allowed: 'any text', default: DEFAULT_SERVICE_NAME, description: 'service.name of every span.' },
  { name: 'OTEL_SDK_DISABLED', allowed: 'true or false', default: 'false', description: 'true turns tracing off whatever the other variables say.' },
] as const;

type Read<T> = { value: T } | undefined;

function given(env: Env, name: string): string | undefined {
  const raw = env[name];
  return isGiven(raw) ? raw!.trim() : undefined;
}

function oneOf<T extends string>(env: Env, name: string, values: readonly T[], problems: SettingProblem[], note = ''): Read<T | undefined> {
  const raw = given(env, name);
  if (raw === undefined) return { value: undefined };
  if ((values as readonly string[]).includes(raw)) return { value: raw as T };
  problems.push({ setting: name, problem: `must be one of ${values.join(', ')}${note}, got ${JSON.stringify(raw)}` });
  return undefined;
}

function endpointOf(env: Env, name: string, problems: SettingProblem[]): Read<string | undefined> {
  const raw = given(env, name);
  if (raw === undefined) return { value: undefined };
  try {
    return { value: ENDPOINT_URL.parse(raw, { cwd: '.' }) };
  } catch (error) {
    if (!(error instanceof ValueProblem)) throw error;
    problems.push({ setting: name, problem: error.message });
    return undefined;
  }
}

/** The base URL's traces path, as the specification appends it (a trailing slash or not). */
function tracesUrl(base: string): string {
  return `${base.replace(/\/+$/, '')}/${TRACES_PATH}`;
}

function ratioOf(env: Env, sampler: TracesSampler, problems: SettingProblem[]): Read<number> {
  const raw = given(env, 'OTEL_TRACES_SAMPLER_ARG');
  if (raw === undefined || !RATIO_SAMPLERS.has(sampler)) return { value: 1 };
  const ratio = /^(\d+(\.\d*)?|\.\d+)$/.test(raw) ? Number(raw) : NaN;
  if (ratio >= 0 && ratio <= 1) return { value: ratio };
  problems.push({ setting: 'OTEL_TRACES_SAMPLER_ARG', problem: `must be a number from 0 to 1 (the share of new traces ${sampler} keeps), got ${JSON.stringify(raw)}` });
  return undefined;
}

/** The tracing settings, or null when tracing is off; problems are collected. */
export function readTracing(env: Env, problems: SettingProblem[]): TracingSettings | null {
  const disabled = oneOf(env, 'OTEL_SDK_DISABLED', ['true', 'false'], problems);
  const exporter = oneOf(env, 'OTEL_TRACES_EXPORTER', TRACES_EXPORTERS, problems, ' (unset: none, tracing off)');
  if (disabled?.value === 'true' || exporter?.value !== 'otlp') return null;
  const grpc = ' (OTLP over HTTP; grpc is not supported)';
  const tracesProtocol = oneOf<OtlpProtocol>(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', OTLP_PROTOCOLS, problems, grpc);
  const protocol = oneOf<OtlpProtocol>(env, 'OTEL_EXPORTER_OTLP_PROTOCOL', OTLP_PROTOCOLS, problems, grpc);
  const tracesEndpoint = endpointOf(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', problems);
  const endpoint = endpointOf(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', problems);
  const sampler = oneOf(env, 'OTEL_TRACES_SAMPLER', TRACES_SAMPLERS, problems);
  const ratio = sampler && ratioOf(env, sampler.value ?? 'parentbased_traceidratio', problems);
  const serviceName = given(env, 'OTEL_SERVICE_NAME') ?? DEFAULT_SERVICE_NAME;
  if (!tracesProtocol || !protocol || !tracesEndpoint || !endpoint || !sampler || !ratio) return null;
  return Object.freeze({
    endpoint: tracesEndpoint.value ?? tracesUrl(endpoint.value ?? DEFAULT_ENDPOINT),
    protocol: tracesProtocol.value ?? protocol.value ?? 'http/protobuf',
    sampler: sampler.value ?? 'parentbased_traceidratio',
    ratio: ratio.value,
    serviceName,
  });
}
