// Stage 7: forward exactly the path, query and body that were authorized to the route's upstream.
// undici's dispatcher is used directly, one keep-alive pool per configured upstream (each with its
// own timeout and connection limit), and the upstream's answer
// is written to the client's socket as it arrives: no stream objects or header objects in between
// (a proxy's cost is mostly this path, so it carries nothing it does not need). Response headers
// pass by the same rule as before: hop-by-hop fields describe the gateway's own connections.
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Pool, type Dispatcher } from 'undici';
import { GatewayError } from '../errors.js';
import { sendError } from '../http/error-reply.js';
import { downstreamHeaderList } from './mutate.js';
import type { ResponseSigning } from './response-signing.js';
import { SignedResponseRelay } from './signed-response-relay.js';
import { traceUpstreamCall, type UpstreamRelay } from './upstream-span.js';
import type { Tracing } from '../tracing/tracing.js';
import type { Allowed, ResponseFields } from './verdict.js';

/** One upstream the gateway forwards to (gateway/config/upstream-settings.ts, with its URL set). */
export interface UpstreamTarget {
  readonly url: string;
  /** Longest wait for its response headers, and between two pieces of its body. */
  readonly timeoutMs: number;
  /** Most connections open to it at once; 0: no limit. */
  readonly connections: number;
}

function poolFor(upstream: UpstreamTarget): Pool {
  return new Pool(upstream.url, {
    headersTimeout: upstream.timeoutMs,
    bodyTimeout: upstream.timeoutMs,
    connectTimeout: Math.min(upstream.timeoutMs, 5000),
    connections: upstream.connections === 0 ? null : upstream.connections,
  });
}

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

export function upstreamError(error: Error & { code?: string }): GatewayError {
  return new GatewayError(TIMEOUT_CODES.has(error.code ?? '') ? 'upstream_timeout' : 'upstream_unavailable');
}

/** Relays one upstream response to the client's socket (undici's dispatch handler interface). */
class ResponseRelay implements Dispatcher.DispatchHandler {
  private abortUpstream: ((error?: Error) => void) | undefined;
  private resume: (() => void) | undefined;
  private started = false;
  private clientGone = false;
  private readonly response: ServerResponse;

  constructor(
    private readonly request: FastifyRequest,
    private readonly reply: FastifyReply,
    private readonly fields: ResponseFields,
    private readonly done: () => void,
  ) {
    this.response = reply.raw;
    // A client that goes away stops the upstream exchange too, also one still queued for a
    // connection: its relay would otherwise wait for a drain that never comes.
    this.response.once('close', () => {
      if (this.response.writableFinished) return;
      this.clientGone = true;
      this.abortUpstream?.();
    });
  }

  onConnect(abort: (error?: Error) => void): void {
    this.abortUpstream = abort;
    if (this.clientGone) abort();
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void): boolean {
    // An informational answer (103 Early Hints) is not the response: wait for the final one.
    if (statusCode < 200) return true;
    this.resume = resume;
    this.started = true;
    this.reply.hijack();
    this.response.writeHead(statusCode, downstreamHeaderList(rawHeaders, this.fields));
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.response.write(chunk)) return true;
    if (this.response.destroyed) {
      this.abortUpstream?.();
      return true;
    }
    // Backpressure from a slow client: pause the upstream until the client's socket drains.
    this.response.once('drain', this.resume!);
    return false;
  }

  onComplete(): void {
    this.response.end();
    this.done();
  }

  onError(error: Error): void {
    if (this.started) {
      // The status line is gone: all that is left is to cut the connection, so the client sees
      // a truncated response rather than a complete-looking one.
      this.response.destroy(error);
    } else if (!this.response.destroyed) {
      this.request.log.warn({ code: (error as { code?: string }).code }, 'upstream request failed');
      sendError(this.request, this.reply, upstreamError(error));
    }
    this.done();
  }
}

interface UpstreamPool {
  readonly pool: Pool;
  /** Where it connects (a traced call's server.address and server.port). */
  readonly origin: URL;
}

export class Forwarder {
  private readonly pools: ReadonlyMap<string, UpstreamPool>;

  /**
   * One pool per upstream, by name; `signing` signs the responses of message_signing routes;
   * `tracing`, when on, makes each call a CLIENT span and sends its traceparent (upstream-span.ts).
   */
  constructor(
    upstreams: Readonly<Record<string, UpstreamTarget>>,
    private readonly signing: ResponseSigning,
    private readonly tracing: Tracing | undefined,
  ) {
    this.pools = new Map(Object.entries(upstreams).map(([name, upstream]) => [name, { pool: poolFor(upstream), origin: new URL(upstream.url) }]));
  }

  /**
   * Sends the allowed request upstream with the headers stage 6 decided; resolves once the response
   * was relayed or the failure answered (502 upstream_unavailable, 504 upstream_timeout).
   */
  forward(request: FastifyRequest, reply: FastifyReply, verdict: Allowed, headers: IncomingHttpHeaders): Promise<void> {
    const { target, route } = verdict.request;
    const body = verdict.body;
    const path = target.query === '' ? target.path : `${target.path}?${target.query}`;
    // A signed route forwards exactly the bytes it verified; any other body streams through.
    const payload: Buffer | Readable | null = body ?? (request.body as Readable | undefined) ?? null;
    // The client left while the checks ran: nobody to answer, nothing to send upstream.
    if (reply.raw.destroyed) return Promise.resolve();
    const upstream = this.pools.get(route.upstream);
    if (!upstream) {
      // The start and every reload refuse a policy naming an upstream without a URL: not reached.
      request.log.error({ upstream: route.upstream }, 'the route names an upstream without a connection pool');
      sendError(request, reply, new GatewayError('upstream_unavailable'));
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      let relay: UpstreamRelay =
        verdict.answered === undefined
          ? new ResponseRelay(request, reply, verdict.responseFields, resolve)
          : new SignedResponseRelay(request, reply, verdict.responseFields, verdict.answered, this.signing, upstreamError, resolve);
      if (this.tracing !== undefined && request.traceSpan !== undefined) {
        relay = traceUpstreamCall(
          this.tracing,
          request.traceSpan,
          { method: request.method, upstream: route.upstream, origin: upstream.origin },
          headers,
          relay,
        );
      }
      upstream.pool.dispatch({ method: request.method, path, headers, body: payload }, relay);
    });
  }

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map(({ pool }) => pool.close()));
  }
}
