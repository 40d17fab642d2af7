// One Fastify listener as the gateway runs each of its listeners: request ids, JSON logs, the
// timeouts and connection cap that bound what an unauthenticated client can hold, catalog errors.
import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { DestinationStream } from 'pino';
import type { Settings } from '../config/settings.js';
import { GatewayError } from '../errors.js';
import type { Tracing } from '../tracing/tracing.js';
import { clientErrorHandler } from './client-errors.js';
import { installErrorReplies, sendError } from './error-reply.js';
import { installJsonBodyParser } from './json-body-parser.js';
import { loggerOptions, traceAwareChildLogger } from './logging.js';
import { logEachRequest } from './request-log.js';
import { traceRequests, tracedChildLogger } from './request-tracing.js';
import { schemaErrorsToGatewayError } from './schema-errors.js';
import { SCHEMA_VALIDATOR } from './schema-validation.js';

/** How a listener is built besides its settings. */
export interface ListenerOptions {
  /** Traces each request (request-tracing.ts); unset: no tracing work at all. */
  readonly tracing?: Tracing | undefined;
}

/**
 * Each request's logger, made on its first line (lazy-child-logger.ts): the trace id of the
 * request's traceparent; on a traced listener its span's trace and span ids instead
 * (request-tracing.ts: one trace_id per line).
 */
function childLoggerFactory({ tracing }: ListenerOptions): FastifyServerOptions['childLoggerFactory'] {
  return tracing ? tracedChildLogger(tracing) : traceAwareChildLogger();
}

export function newFastify(
  settings: Settings,
  options: { logStream?: DestinationStream | undefined },
  bodyLimit: number,
  listener: ListenerOptions = {},
): FastifyInstance {
  const app = Fastify({
    logger: loggerOptions(settings.logLevel, settings.logFormat, options.logStream),
    genReqId: () => randomUUID(),
    // One line per request, written by logEachRequest once the response is done.
    logController: new LogController({ requestIdLogLabel: 'request_id', disableRequestLogging: true }),
    childLoggerFactory: childLoggerFactory(listener),
    // The gateway decides which X-Forwarded-For hops to believe (GATEWAY_TRUSTED_PROXIES), not Fastify.
    trustProxy: false,
    bodyLimit,
    // A request that reaches a closing listener on an open connection is answered (Fastify adds
    // Connection: close), never refused: a stop must not fail requests (gateway/process/drain.ts).
    return503OnClosing: false,
    // What an unauthenticated client can hold: a connection, for these times at most.
    requestTimeout: settings.requestTimeoutMs,
    keepAliveTimeout: settings.keepAliveTimeoutMs,
    // Node checks the timeouts every connectionsCheckingInterval (30 s by default): check often enough
    // that a timeout means what it says.
    http: { headersTimeout: settings.headersTimeoutMs, connectionsCheckingInterval: Math.min(1000, settings.headersTimeoutMs) },
    clientErrorHandler,
    // Route schemas (the admin API's) are checked by this AJV; a failure is a validation_error naming the field.
    ajv: SCHEMA_VALIDATOR,
    schemaErrorFormatter: schemaErrorsToGatewayError,
    // Errors Fastify raises before routing (e.g. a malformed percent-encoding) use the catalog too.
    frameworkErrors: (error, request, reply) => {
      const code = (error as { code?: string }).code === 'FST_ERR_BAD_URL' ? 'ambiguous_path' : 'bad_request';
      sendError(
        request,
        reply,
        new GatewayError(code, code === 'ambiguous_path' ? 'The request path is rejected: it contains a malformed percent-encoding.' : undefined),
      );
    },
  });
  app.server.maxConnections = settings.maxConnections;
  installErrorReplies(app);
  // First of the request hooks: a request the readiness gate refuses is traced too.
  if (listener.tracing) traceRequests(app, 'public');
  logEachRequest(app);
  // JSON bodies nested past a fixed depth are a 400 before they are parsed, on every route.
  installJsonBodyParser(app);
  return app;
}
