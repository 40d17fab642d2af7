// Logger options shared by both listeners. Requests are logged by path only (a query string may
// carry anything), and every header or field that can hold a credential is redacted.
import type { FastifyServerOptions } from 'fastify';
import { pino, stdTimeFunctions, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import type { LogFormat } from '../config/setting-registry.js';
import { lazyChildLogger } from './lazy-child-logger.js';

const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers.signature',
  'req.headers["x-access-id"]',
  'headers.authorization',
  'headers.cookie',
];
const CENSOR = '[redacted]';
const REDACTION = { paths: REDACTED_PATHS, censor: CENSOR };

/**
 * Fields that hold a credential wherever a line carries them: at its top level or one level down
 * (a form, a body, an error's own fields). Censored by a formatter, not by pino's redaction: its
 * wildcard paths ("*.token") cost 4 µs a line, every line, where looking at the line's fields costs
 * a fraction of that (BENCHMARKS.md).
 */
const SECRET_FIELDS: ReadonlySet<string> = new Set(['client_secret', 'access_token', 'token', 'password', 'admin_token']);

/** The object with its secret fields censored (a copy keeping its prototype), or itself when it has none. */
function censoredFields(value: object): object {
  // Their keys are indices (a Buffer has one a byte): no field is named there.
  if (Array.isArray(value) || ArrayBuffer.isView(value)) return value;
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(value)) {
    if (!SECRET_FIELDS.has(key)) continue;
    copy ??= Object.assign(
      Object.create(Object.getPrototypeOf(value) as object | null) as Record<string, unknown>,
      value,
      value instanceof Error ? { message: value.message, stack: value.stack } : {},
    );
    copy[key] = CENSOR;
  }
  return copy ?? value;
}

/** pino's log formatter: the line's fields with every secret field censored; the line itself when it has none. */
export function censorSecrets(line: Record<string, unknown>): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const key in line) {
    const value = line[key];
    const kept = SECRET_FIELDS.has(key) ? CENSOR : typeof value === 'object' && value !== null ? censoredFields(value) : value;
    if (kept !== value) (copy ??= { ...line })[key] = kept;
  }
  return copy ?? line;
}

interface LoggedRequest {
  method: string;
  url: string;
  socket?: { remoteAddress?: string };
}

/**
 * pino options of a log format: pino's own (time in epoch milliseconds, numeric levels), or iso
 * (ISO 8601 time and level names), for log pipelines that expect those. Every logger of the process uses them.
 */
export function logFormatOptions(format: LogFormat): Pick<LoggerOptions, 'timestamp' | 'formatters'> {
  return format === 'iso' ? { timestamp: stdTimeFunctions.isoTime, formatters: { level: (label: string) => ({ level: label }) } } : {};
}

/** The options of a listener's logger: the format, and every credential kept out of its lines. */
function redactingOptions(format: LogFormat): Pick<LoggerOptions, 'timestamp' | 'formatters' | 'redact'> {
  const formatOptions = logFormatOptions(format);
  return { ...formatOptions, formatters: { ...formatOptions.formatters, log: censorSecrets }, redact: REDACTION };
}

export function loggerOptions(level: string, format: LogFormat, stream?: DestinationStream): FastifyServerOptions['logger'] {
  return {
    level,
    ...(stream ? { stream } : {}),
    ...redactingOptions(format),
    serializers: {
      req: (request: LoggedRequest) => ({
        method: request.method,
        path: request.url.split('?', 1)[0],
        remoteAddress: request.socket?.remoteAddress,
      }),
    },
  };
}

/** A logger like a listener's, for a listener that is not a Fastify one (the decision listeners); its lines carry `listener`. */
export function listenerLogger(level: string, format: LogFormat, listener: string, stream?: DestinationStream): Logger {
  const options: LoggerOptions = { level, ...redactingOptions(format) };
  return (stream ? pino(options, stream) : pino(options)).child({ listener });
}

/** Shows an Access ID the way the list does: the first 8 characters, the rest hidden. */
export function maskAccessId(accessId: string): string {
  return accessId.length <= 8 ? '********' : `${accessId.slice(0, 8)}-****-****-****-************`;
}

// W3C Trace Context (version 00): trace-id and parent-id, neither all zeros.
const TRACEPARENT = /^00-(?!0{32})([0-9a-f]{32})-(?!0{16})([0-9a-f]{16})-[0-9a-f]{2}$/;

/**
 * Fastify's childLoggerFactory while tracing is off: every log line of a request carries the trace
 * id of its W3C `traceparent` header (which is then forwarded to the upstream as sent), so gateway
 * and upstream logs join up. An invalid header is ignored, never echoed into the logs. With tracing
 * on, the request's span's ids are bound instead (request-tracing.ts).
 */
export function traceAwareChildLogger(): FastifyServerOptions['childLoggerFactory'] {
  return function (logger, bindings, options, rawRequest) {
    return lazyChildLogger(logger, () => ({ ...bindings, ...traceFields(rawRequest.headers.traceparent) }), options);
  };
}

/** The log fields of a W3C traceparent value (trace_id, parent_span_id); none for an absent or invalid one. */
export function traceFields(header: string | string[] | undefined): { trace_id?: string; parent_span_id?: string } {
  const match = typeof header === 'string' ? TRACEPARENT.exec(header) : null;
  return match ? { trace_id: match[1]!, parent_span_id: match[2]! } : {};
}
