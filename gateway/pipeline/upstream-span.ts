// Stage 7 traced: the upstream call is a CLIENT span under the request's SERVER span, and the
// upstream gets the gateway's traceparent (and tracestate), naming that span as its parent, in
// place of the client's own (mutate.ts lets a client's pass; it names the client's span, not the
// gateway's). The span ends with the upstream's status, or its failure. An unsampled request makes
// no span to record, only the ids of the traceparent it sends (flagged unsampled).
import type { IncomingHttpHeaders } from 'node:http';
import { SpanStatusCode, type Span } from '@opentelemetry/api';
import type { Dispatcher } from 'undici';
import { ATTR } from '../tracing/span-attributes.js';
import type { Tracing } from '../tracing/tracing.js';

/** What a relay of the upstream's answer implements (forward.ts, signed-response-relay.ts). */
export type UpstreamRelay = Required<Pick<Dispatcher.DispatchHandler, 'onConnect' | 'onHeaders' | 'onData' | 'onComplete' | 'onError'>>;

/** The relay, with the span ended once the exchange is over. */
class TracedRelay implements UpstreamRelay {
  constructor(
    private readonly span: Span,
    private readonly relay: UpstreamRelay,
  ) {}

  onConnect(abort: (error?: Error) => void): void {
    this.relay.onConnect(abort);
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void, statusText: string): boolean {
    if (statusCode >= 200) this.span.setAttribute(ATTR.httpStatus, statusCode);
    if (statusCode >= 500) this.span.setAttributes({ [ATTR.errorType]: String(statusCode) }).setStatus({ code: SpanStatusCode.ERROR });
    return this.relay.onHeaders(statusCode, rawHeaders, resume, statusText);
  }

  onData(chunk: Buffer): boolean {
    return this.relay.onData(chunk);
  }

  onComplete(trailers: string[] | null): void {
    this.relay.onComplete(trailers);
    this.span.end();
  }

  onError(error: Error): void {
    this.relay.onError(error);
    this.span.setAttribute(ATTR.errorType, (error as { code?: string }).code ?? error.name).setStatus({ code: SpanStatusCode.ERROR });
    this.span.end();
  }
}

export interface UpstreamCall {
  readonly method: string;
  /** The upstream's name and origin. */
  readonly upstream: string;
  readonly origin: URL;
}

/**
 * Starts the CLIENT span of an upstream call under `parent`, sets the traceparent the upstream gets
 * in `headers`, and returns the relay that ends the span.
 */
export function traceUpstreamCall(tracing: Tracing, parent: Span, call: UpstreamCall, headers: IncomingHttpHeaders, relay: UpstreamRelay): UpstreamRelay {
  const span = tracing.startClientSpan(parent, call.method);
  tracing.propagate(span, headers);
  if (!span.isRecording()) return relay;
  span.setAttributes({
    [ATTR.httpMethod]: call.method,
    [ATTR.serverAddress]: call.origin.hostname,
    [ATTR.serverPort]: Number(call.origin.port) || (call.origin.protocol === 'https:' ? 443 : 80),
    [ATTR.upstream]: call.upstream,
  });
  return new TracedRelay(span, relay);
}
