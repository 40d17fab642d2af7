// Logger options shared by both listeners. Requests are logged by path only (a query string may
// carry anything), and every header or field that can hold a credential is redacted.
import type { FastifyServerOptions } from 'fastify';
import type { DestinationStream } from 'pino';

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers.signature',
  'req.headers["x-access-id"]',
  'headers.authorization',
  'headers.cookie',
  '*.client_secret',
  '*.access_token',
  '*.token',
  '*.password',
  '*.admin_token',
];

interface LoggedRequest {
  method: string;
  url: string;
  socket?: { remoteAddress?: string };
}

export function loggerOptions(level: string, stream?: DestinationStream): FastifyServerOptions['logger'] {
  return {
    level,
    ...(stream ? { stream } : {}),
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    serializers: {
      req: (request: LoggedRequest) => ({
        method: request.method,
        path: request.url.split('?', 1)[0],
        remoteAddress: request.socket?.remoteAddress,
      }),
    },
  };
}

/** Shows an Access ID the way the list does: the first 8 characters, the rest hidden. */
export function maskAccessId(accessId: string): string {
  return accessId.length <= 8 ? '********' : `${accessId.slice(0, 8)}-****-****-****-************`;
}

// W3C Trace Context (version 00): trace-id and parent-id, neither all zeros.
const TRACEPARENT = /^00-(?!0{32})([0-9a-f]{32})-(?!0{16})([0-9a-f]{16})-[0-9a-f]{2}$/;

/**
 * Fastify's childLoggerFactory: every log line of a request carries the trace id of its W3C
 * `traceparent` header (which is forwarded to the upstream as sent), so gateway and upstream logs
 * join up. An invalid header is ignored, never echoed into the logs.
 */
export const traceAwareChildLogger: FastifyServerOptions['childLoggerFactory'] = function (logger, bindings, options, rawRequest) {
  const header = rawRequest.headers.traceparent;
  const match = typeof header === 'string' ? TRACEPARENT.exec(header) : null;
  return logger.child(match ? { ...bindings, trace_id: match[1], parent_span_id: match[2] } : bindings, options);
};
