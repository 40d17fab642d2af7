// The SERVER span of each request on a traced listener (public and decision; admin is not traced).
// It starts with the request's logger (Fastify's childLoggerFactory, the first thing made for a
// request), continuing the trace its traceparent names, and its ids are bound in that same child
// logger: every line of the request, its request line among them, carries trace_id and span_id
// (a second child logger per request measured tens of µs). It ends when the response is done or
// the client left (the response's close: Fastify runs no onResponse for a client gone first), with
// the status. What the checks decided is added where they decide (gateway/pipeline/verdict-attributes.ts).
// An unsampled span records nothing: only its ids are made, for the logs and the upstream's traceparent.
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { SpanStatusCode, type Span } from '@opentelemetry/api';
import { ATTR } from '../tracing/span-attributes.js';
import type { Tracing } from '../tracing/tracing.js';
import { lazyChildLogger } from './lazy-child-logger.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's SERVER span; undefined on a listener that is not traced. */
    readonly traceSpan: Span | undefined;
  }
}

const SPAN = Symbol('server span');

/** The raw request carries its span from the logger factory to the request (one property, set on every request alike). */
type TracedMessage = IncomingMessage & { [SPAN]?: Span };

/** The childLoggerFactory of a traced listener: starts the span and binds its ids. */
export function tracedChildLogger(tracing: Tracing): FastifyServerOptions['childLoggerFactory'] {
  return function (logger, bindings, options, rawRequest: TracedMessage) {
    const span = tracing.startServerSpan(rawRequest.method ?? '', rawRequest.headers);
    rawRequest[SPAN] = span;
    const { traceId, spanId } = span.spanContext();
    return lazyChildLogger(logger, () => ({ ...bindings, trace_id: traceId, span_id: spanId }), options);
  };
}

/** The route a request matched; not a catch-all's (the proxy names its span after the policy route instead). */
function ownRoute(reply: FastifyReply): string | undefined {
  const url = reply.routeOptions.url;
  return url === undefined || url === '/*' ? undefined : url;
}

function endServerSpan(span: Span, request: FastifyRequest, reply: FastifyReply): void {
  const status = reply.raw.statusCode;
  span.setAttribute(ATTR.httpStatus, status);
  const route = ownRoute(reply);
  if (route !== undefined) {
    span.setAttribute(ATTR.httpRoute, route);
    span.updateName(`${request.method} ${route}`);
  }
  // Server errors only: a 4xx is the gateway doing its job.
  if (status >= 500) {
    span.setAttribute(ATTR.errorType, request.errorCode ?? String(status));
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

/** Gives each request its span (started by tracedChildLogger), and ends a recorded one with the response. */
export function traceRequests(app: FastifyInstance, listener: string): void {
  app.decorateRequest('traceSpan', {
    getter(this: FastifyRequest) {
      return (this.raw as TracedMessage)[SPAN];
    },
  });
  app.addHook('onRequest', (request, reply, done) => {
    const span = request.traceSpan;
    if (span?.isRecording()) {
      span.setAttributes({
        [ATTR.httpMethod]: request.method,
        [ATTR.urlPath]: request.url.split('?', 1)[0],
        [ATTR.urlScheme]: request.protocol,
        [ATTR.listener]: listener,
      });
      reply.raw.once('close', () => endServerSpan(span, request, reply));
    }
    done();
  });
}
