// The observers of the listeners that answer for the pipeline: once a response is sent, they
// record the request's metrics, and audit a denied request. A refused credential counts in
// gateway_auth_failures_total (and a rate-limited request in gateway_rate_limited_requests_total)
// whether the proxy refused it or a decision did, so the alerts and dashboards on them see traffic
// behind an edge proxy too. The public listener also counts its requests and their duration
// (proxied ones by policy route, the gateway's own endpoints by path); the decision listeners (HTTP
// and gRPC, recordDecision) count their decisions by edge proxy convention instead.
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ERRORS, type ErrorCode } from '../errors.js';
import { audit } from '../http/audit.js';
import { statusClass, type GatewayMetrics } from '../metrics/metrics.js';
import type { Verdict } from './verdict.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** What the checks concluded, set by the listener that ran them. */
    verdict?: Verdict;
    /** performance.now() when the request passed every check and was handed to the proxy. */
    forwardedAt?: number;
  }
}

/** A refusal of the credential: its status is 401 or 403 (not the status an edge proxy needs instead), or the sign-in throttle. */
function refusesCredential(code: ErrorCode): boolean {
  const status = ERRORS[code].status;
  return status === 401 || status === 403 || code === 'too_many_requests';
}

function observePublic(metrics: GatewayMetrics, request: FastifyRequest, reply: FastifyReply): void {
  const identified = request.verdict?.request;
  // Proxied requests are labelled by policy route; the gateway's own endpoints by their path.
  const own = reply.routeOptions.url;
  const route = identified?.route.id ?? (own && own !== '/' && own !== '/*' ? own : 'unmatched');
  const code = request.errorCode;
  const outcome = code ?? (reply.statusCode < 400 || request.verdict?.allowed ? 'forwarded' : `status_${reply.statusCode}`);
  metrics.requests.cell(route, outcome, statusClass(reply.statusCode)).inc();
  if (code === 'rate_limited') metrics.rateLimited.cell(route).inc();
  if (request.forwardedAt !== undefined) metrics.stages.upstream.observe((performance.now() - request.forwardedAt) / 1000);
  metrics.duration.cell(route, outcome).observe(reply.elapsedTime / 1000);
  if (code && refusesCredential(code)) {
    // Off the pipeline, a 401 or 403 on the public listener is the token endpoint's client authentication.
    const scheme = identified?.route.auth ?? 'client';
    metrics.authFailures.cell(scheme, code).inc();
    audit(request.log, 'request.denied', {
      reason: code,
      scheme,
      route,
      status: reply.statusCode,
      address: identified?.clientAddress?.toString() ?? request.socket.remoteAddress ?? null,
    });
  }
}

/** One decision, however it was asked (an HTTP convention or Envoy's gRPC service). */
export interface DecidedRequest {
  /** The edge proxy convention ('envoy-grpc' for the gRPC service; 'none' off the routes). */
  readonly convention: string;
  /** What the checks concluded; undefined when the decision was refused before them (an untrusted caller, a bad description). */
  readonly verdict: Verdict | undefined;
  /** The error code answered; undefined when allowed. An outcome outside the catalog (cancelled) is given as `outcome`. */
  readonly code: ErrorCode | undefined;
  /** Overrides the metrics' outcome label (a call the edge proxy gave up on before the answer). */
  readonly outcome?: string;
  /** The status answered (the one the edge proxy needs). */
  readonly status: number;
  readonly seconds: number;
}

/**
 * Counts a decision (by convention, route and outcome), its duration, a rate-limited request and a
 * refused credential, and audits every refusal.
 */
export function recordDecision(metrics: GatewayMetrics, log: FastifyBaseLogger, decided: DecidedRequest): void {
  const { convention, code, status } = decided;
  const identified = decided.verdict?.request;
  const route = identified?.route.id ?? 'unmatched';
  const outcome = decided.outcome ?? code ?? 'allowed';
  metrics.decisions.cell(convention, route, outcome).inc();
  metrics.decisionDuration.cell(convention, outcome).observe(decided.seconds);
  if (!code) return;
  if (identified && code === 'rate_limited') metrics.rateLimited.cell(route).inc();
  // Counted only once a route was identified: a refused edge proxy or description is not a refused credential.
  if (identified && refusesCredential(code)) metrics.authFailures.cell(identified.route.auth, code).inc();
  // Every refused decision is audited: the edge proxy answers the client with it.
  audit(log, 'request.denied', {
    mode: 'decision',
    convention,
    reason: code,
    scheme: identified?.route.auth ?? null,
    route,
    status,
    address: identified?.clientAddress?.toString() ?? null,
  });
}

/** The public listener's observer (the decision listeners call recordDecision themselves). */
export function observeRequests(app: FastifyInstance, metrics: GatewayMetrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    observePublic(metrics, request, reply);
    done();
  });
}
