// One decision request on the HTTP decision listener, from arrival to the end of its answer. Edge
// proxies (nginx auth_request, Envoy ext_authz, Traefik forwardAuth, Caddy forward_auth) ask
// whether a request may pass. It runs the proxy's own checks (pipeline stages 1-5, nonce consumed
// and, when the body is sent, its digest checked) and applies their verdict to its answer:
//   200 with the identity headers the proxy would have sent upstream, for the edge to copy; or
//   the proxy's refusal: status, error body, WWW-Authenticate, Accept-Signature, Retry-After;
// either with the verdict's response fields (RateLimit-*) for the edge to pass on to the client.
// Only trusted proxies may ask: the decision believes its caller's description of the request and
// its X-Forwarded-For, so a client that reached this listener could choose its own address.
//
// It answers on node:http directly, without Fastify's request and reply, hook chain and routing: a
// decision forwards nothing, so those were about a sixth of its CPU (BENCHMARKS.md). What the other
// listeners get from their hooks happens here in this order: readiness, the caller, the route
// (a convention's path prefix), the description, the checks, the answer; then, once the exchange
// is over, its metrics, its request line and its span.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { SpanStatusCode, type Span } from '@opentelemetry/api';
import type { Logger } from 'pino';
import type { Settings } from '../config/settings.js';
import { GatewayError, type ErrorCode } from '../errors.js';
import { errorBody, loggedAsFailure, toGatewayError } from '../http/error-reply.js';
import { lazyChildLogger, levelEnabled } from '../http/lazy-child-logger.js';
import { closingUnreadBody } from '../http/lingering-close.js';
import { traceFields } from '../http/logging.js';
import type { GatewayMetrics } from '../metrics/metrics.js';
import type { Cidr } from '../net/cidr.js';
import { isTrustedProxy, peerAddressOf } from '../net/client-ip.js';
import { messageBody } from '../pipeline/body-source.js';
import { recordDecision } from '../pipeline/observe.js';
import { PROXIED_METHODS, type RequestChecker } from '../pipeline/pipeline.js';
import { verdictLogFields, type Verdict } from '../pipeline/verdict.js';
import { recordVerdict } from '../pipeline/verdict-attributes.js';
import { ATTR } from '../tracing/span-attributes.js';
import type { Tracing } from '../tracing/tracing.js';
import { CONVENTION_LIST, type Convention } from './conventions.js';

/** The listener label of its metrics, log lines and spans. */
export const DECISION_LISTENER = 'decision';

export interface DecisionDependencies {
  settings: Pick<Settings, 'trustedProxies'>;
  check: RequestChecker;
  metrics: GatewayMetrics;
  /** What a request is refused with while the gateway is not ready (Readiness.refusal); undefined once ready. */
  notReady: () => GatewayError | undefined;
  /** Traces each decision; unset: no tracing work at all. */
  tracing: Tracing | undefined;
  /** The listener's logger (its lines carry listener: "decision"). */
  log: Logger;
}

/** A convention's route: its prefix alone, or the prefix and a path after it (the span's http.route). */
interface Route {
  readonly convention: Convention;
  readonly pattern: string;
}

const ROUTES: readonly { prefix: string; exact: Route; below: Route }[] = CONVENTION_LIST.map((convention) => ({
  prefix: convention.prefix,
  exact: { convention, pattern: convention.prefix },
  below: { convention, pattern: `${convention.prefix}/*` },
}));

const SLASH = 0x2f;
const QUESTION_MARK = 0x3f;

/** The convention whose prefix the request target starts with: the prefix, then the end, a query or a path. */
export function routeOf(url: string): Route | undefined {
  for (const { prefix, exact, below } of ROUTES) {
    if (!url.startsWith(prefix)) continue;
    if (url.length === prefix.length || url.charCodeAt(prefix.length) === QUESTION_MARK) return exact;
    if (url.charCodeAt(prefix.length) === SLASH) return below;
  }
  return undefined;
}

const ANSWERED_METHODS: ReadonlySet<string> = new Set(PROXIED_METHODS);
const OFF_ROUTE = `The decision listener answers under ${CONVENTION_LIST.map((c) => c.prefix).join(', ')} only.`;

/** Whether a connection's peer is a trusted proxy: judged once per connection, not per request. */
function trustedCallerCheck(trustedProxies: readonly Cidr[]): (socket: Socket) => boolean {
  const judged = new WeakMap<Socket, boolean>();
  return (socket) => {
    let trusted = judged.get(socket);
    if (trusted === undefined) judged.set(socket, (trusted = isTrustedProxy(peerAddressOf(socket), trustedProxies)));
    return trusted;
  };
}

/** The request listener of the decision server. `closing()` is true once the listener is being closed. */
export function decisionHandler(deps: DecisionDependencies, closing: () => boolean): (request: IncomingMessage, response: ServerResponse) => void {
  const callerTrusted = trustedCallerCheck(deps.settings.trustedProxies);
  const inFlight = deps.metrics.inFlight.cell(DECISION_LISTENER);
  return (request, response) => {
    inFlight.inc();
    const exchange = new DecisionExchange(deps, request, response, closing);
    response.once('close', () => {
      inFlight.dec();
      exchange.observe();
    });
    exchange.decide(callerTrusted(request.socket));
  };
}

class DecisionExchange {
  private readonly started = performance.now();
  private readonly id = randomUUID();
  private readonly span: Span | undefined;
  private readonly log: Logger;
  private route: Route | undefined;
  private verdict: Verdict | undefined;
  private errorCode: ErrorCode | undefined;

  constructor(
    private readonly deps: DecisionDependencies,
    private readonly request: IncomingMessage,
    private readonly response: ServerResponse,
    private readonly closing: () => boolean,
  ) {
    this.span = deps.tracing?.startServerSpan(request.method ?? '', request.headers);
    if (this.span?.isRecording()) {
      this.span.setAttributes({
        [ATTR.httpMethod]: request.method ?? '',
        [ATTR.urlPath]: this.path(),
        [ATTR.urlScheme]: 'http',
        [ATTR.listener]: DECISION_LISTENER,
      });
    }
    // Made on its first line (most decisions write none below info).
    this.log = lazyChildLogger(deps.log, () => this.logBindings(), {}) as Logger;
  }

  decide(callerTrusted: boolean): void {
    try {
      const notReady = this.deps.notReady();
      if (notReady) throw notReady;
      if (!callerTrusted) throw new GatewayError('decision_caller_not_trusted');
      if (!ANSWERED_METHODS.has(this.request.method ?? '')) throw new GatewayError('route_not_found');
      this.route = routeOf(this.request.url ?? '');
      if (this.route === undefined) throw new GatewayError('decision_request_invalid', OFF_ROUTE);
      const convention = this.route.convention;
      this.deps
        .check({
          original: convention.describe(this.request),
          peer: peerAddressOf(this.request.socket),
          body: messageBody(this.request, this.response),
          log: this.log,
        })
        .then(
          (verdict) => this.answer(convention, verdict),
          (error: unknown) => this.refuse(error),
        );
    } catch (error) {
      this.refuse(error);
    }
  }

  /** Once the exchange is over (answered, or the caller gone first): metrics, the request line, the span. */
  observe(): void {
    const seconds = (performance.now() - this.started) / 1000;
    const cancelled = !this.response.writableEnded;
    // 499 for a request whose caller left before the answer, as nginx logs it.
    const status = cancelled ? 499 : this.response.statusCode;
    recordDecision(this.deps.metrics, this.log, {
      convention: this.route?.convention.name ?? 'none',
      verdict: this.verdict,
      code: this.errorCode,
      ...(cancelled ? { outcome: 'cancelled' } : {}),
      status,
      seconds,
    });
    if (levelEnabled(this.log, 'info')) {
      this.log.info(
        {
          method: this.request.method,
          path: this.path(),
          status,
          duration_ms: Math.round(seconds * 10_000) / 10,
          outcome: cancelled ? 'cancelled' : (this.errorCode ?? 'ok'),
          ...(this.verdict ? verdictLogFields(this.verdict) : {}),
        },
        'request',
      );
    }
    if (this.span?.isRecording()) this.endSpan(this.span, status);
  }

  private answer(convention: Convention, verdict: Verdict): void {
    this.verdict = verdict;
    if (this.span !== undefined) recordVerdict(this.span, verdict);
    if (!verdict.allowed) {
      this.refuse(verdict.error);
      return;
    }
    const headers: Record<string, string> = { ...verdict.responseFields, 'x-request-id': this.id, ...verdict.identityHeaders };
    convention.completeAllowed?.(this.request, headers);
    headers['content-length'] = '0';
    this.closeIfClosing(headers);
    try {
      this.response.writeHead(200, headers).end();
    } catch (error) {
      // A header value Node refuses (it validates them): the caller gets a refusal, never a half answer,
      // and none of the allowed answer's headers already set on it (a drain's Connection: close stays).
      for (const name of this.response.getHeaderNames()) if (name !== 'connection') this.response.removeHeader(name);
      this.refuse(error);
    }
  }

  private refuse(thrown: unknown): void {
    const error = toGatewayError(thrown);
    this.errorCode = error.code;
    if (loggedAsFailure(error)) this.log.error({ err: thrown, code: error.code }, 'decision failed');
    // An edge proxy drops the body that carries it (nginx keeps only the status): kept for an operator.
    if (error.details.signature_base !== undefined) this.log.debug({ signature_base: error.details.signature_base }, 'signature base of a refused request');
    const allowed = this.route?.convention.refusalStatuses;
    const status = allowed && !allowed.includes(error.status) ? 403 : error.status;
    const body = JSON.stringify(errorBody(error, this.id));
    // The code and request id in headers too: nginx keeps the status and headers of a refusal, not its body.
    const headers: Record<string, string> = {
      ...this.verdict?.responseFields,
      'x-gateway-error': error.code,
      'x-request-id': this.id,
      ...error.headers,
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(body)),
    };
    // A refusal before the body was read leaves it unread: close the connection rather than read on.
    if (closingUnreadBody(this.request)) headers.connection = 'close';
    this.closeIfClosing(headers);
    if (this.response.headersSent) {
      this.response.destroy();
      return;
    }
    try {
      this.response.writeHead(status, headers).end(body);
    } catch (error) {
      // Never thrown out of the request listener (it would stop the process): the caller sees its connection end.
      this.log.error({ err: error, code: this.errorCode }, 'decision answer could not be written');
      this.response.destroy();
    }
  }

  /** An answer given while the listener closes ends its connection (the request itself is answered, never refused). */
  private closeIfClosing(headers: Record<string, string>): void {
    if (this.closing()) headers.connection = 'close';
  }

  private path(): string {
    return (this.request.url ?? '').split('?', 1)[0]!;
  }

  /** The request's log bindings: its id, and its span's ids (tracing on) or its traceparent's trace id. */
  private logBindings(): Record<string, string> {
    if (this.span === undefined) return { request_id: this.id, ...traceFields(this.request.headers.traceparent) };
    const { traceId, spanId } = this.span.spanContext();
    return { request_id: this.id, trace_id: traceId, span_id: spanId };
  }

  private endSpan(span: Span, status: number): void {
    span.setAttribute(ATTR.httpStatus, status);
    if (this.route !== undefined) {
      span.setAttribute(ATTR.httpRoute, this.route.pattern);
      span.updateName(`${this.request.method} ${this.route.pattern}`);
    }
    // Server errors only: a 4xx is the gateway doing its job.
    if (status >= 500) {
      span.setAttribute(ATTR.errorType, this.errorCode ?? String(status));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  }
}
