// The SERVER span of each request on a traced listener (public and decision; admin is not traced):
// started as the request arrives, continuing the trace its traceparent names, with its ids bound
// to the request's logger so that every line of the request, its request line among them, carries
// trace_id and span_id. It ends when the response is done or the client left (the response's
// close: Fastify runs no onResponse for a client gone first), with the status. What the checks
// decided is added where they decide (gateway/pipeline/verdict-attributes.ts). An unsampled span
// records nothing: only its ids are made, for the logs and the upstream's traceparent.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SpanStatusCode, type Span } from '@opentelemetry/api';
import { ATTR } from '../tracing/span-attributes.js';
import type { Tracing } from '../tracing/tracing.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's SERVER span; undefined on a listener that is not traced. */
    traceSpan: Span | undefined;
  }
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

export function traceRequests(app: FastifyInstance, tracing: Tracing, listener: string): void {
  app.decorateRequest('traceSpan', undefined);
  app.addHook('onRequest', async (request, reply) => {
    const span = tracing.startServerSpan(request.method, request.headers);
    request.traceSpan = span;
    const { traceId, spanId } = span.spanContext();
    request.log = request.log.child({ trace_id: traceId, span_id: spanId });
    if (!span.isRecording()) return;
    span.setAttributes({
      [ATTR.httpMethod]: request.method,
      [ATTR.urlPath]: request.url.split('?', 1)[0],
      [ATTR.urlScheme]: request.protocol,
      [ATTR.listener]: listener,
    });
    reply.raw.once('close', () => endServerSpan(span, request, reply));
  });
}
