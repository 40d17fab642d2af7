// The decision listener: edge proxies (nginx auth_request, Envoy ext_authz, Traefik forwardAuth)
// ask whether a request may pass. It runs the proxy's own checks (pipeline stages 1-5, nonce
// consumed and, when the body is sent, its digest checked) and applies their verdict to its answer:
//   200 with the identity headers the proxy would have sent upstream, for the edge to copy; or
//   the proxy's refusal: status, error body, WWW-Authenticate, Accept-Signature, Retry-After;
// either with the verdict's response fields (RateLimit-*) for the edge to pass on to the client.
// Only trusted proxies may ask: the decision believes its caller's description of the request and
// its X-Forwarded-For, so a client that reached this listener could choose its own address.
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Settings } from '../config/settings.js';
import { GatewayError } from '../errors.js';
import { loggedAsFailure, sendError, toGatewayError } from '../http/error-reply.js';
import type { GatewayMetrics } from '../metrics/metrics.js';
import { anyContains, type Cidr } from '../net/cidr.js';
import { peerAddressOf } from '../net/client-ip.js';
import { exchangeBody } from '../pipeline/body-source.js';
import { observeRequests } from '../pipeline/observe.js';
import { PROXIED_METHODS, type RequestChecker } from '../pipeline/pipeline.js';
import { verdictLogFields, type Allowed } from '../pipeline/verdict.js';
import { recordVerdict } from '../pipeline/verdict-attributes.js';
import { CONVENTION_LIST, type Convention } from './conventions.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The edge-proxy convention of a decision route. */
    convention?: Convention;
  }
}

export interface DecisionDependencies {
  settings: Pick<Settings, 'trustedProxies'>;
  check: RequestChecker;
  metrics: GatewayMetrics;
}

function decisionHeaders(verdict: Allowed, request: FastifyRequest, convention: Convention): Record<string, string> {
  const headers = { 'x-request-id': String(request.id), ...verdict.identityHeaders };
  convention.completeAllowed?.(request, headers);
  return headers;
}

function refuse(request: FastifyRequest, reply: FastifyReply, thrown: unknown): FastifyReply {
  const error = toGatewayError(thrown);
  if (loggedAsFailure(error)) request.log.error({ err: thrown, code: error.code }, 'decision failed');
  // An edge proxy drops the body that carries it (nginx keeps only the status): kept for an operator.
  if (error.details.signature_base !== undefined) request.log.debug({ signature_base: error.details.signature_base }, 'signature base of a refused request');
  // The code and request id in headers too: nginx keeps the status and headers of a refusal, not its body.
  reply.header('x-gateway-error', error.code).header('x-request-id', String(request.id));
  const allowed = reply.routeOptions.config.convention?.refusalStatuses;
  return sendError(request, reply, error, allowed && !allowed.includes(error.status) ? 403 : error.status);
}

/** Whether a connection's peer is a trusted proxy: judged once per connection, not per request. */
function trustedCallerCheck(trustedProxies: readonly Cidr[]): (socket: Socket) => boolean {
  const judged = new WeakMap<Socket, boolean>();
  return (socket) => {
    let trusted = judged.get(socket);
    if (trusted === undefined) {
      const peer = peerAddressOf(socket);
      trusted = peer !== undefined && anyContains(trustedProxies, peer);
      judged.set(socket, trusted);
    }
    return trusted;
  };
}

export async function registerDecision(app: FastifyInstance, deps: DecisionDependencies): Promise<void> {
  // Its own scope: the decision's refusals replace the listener's default error answers.
  await app.register(async (scope) => {
    const callerTrusted = trustedCallerCheck(deps.settings.trustedProxies);
    scope.addHook('onRequest', (request, _reply, done) => {
      done(callerTrusted(request.socket) ? undefined : new GatewayError('decision_caller_not_trusted'));
    });
    scope.setErrorHandler((error, request, reply) => refuse(request, reply, error));
    observeRequests(scope, deps.metrics, { kind: 'decision', conventionOf: (reply) => reply.routeOptions.config.convention?.name ?? 'none' });

    // Bodies are not parsed: a signed route reads the body the edge proxy sent (if any) in the admit stage.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    for (const convention of CONVENTION_LIST) {
      const handler = async (request: FastifyRequest, reply: FastifyReply) => {
        const verdict = await deps.check({
          original: convention.describe(request),
          peer: peerAddressOf(request.socket),
          body: exchangeBody(request, reply),
          log: request.log,
        });
        request.verdict = verdict;
        request.logFields = verdictLogFields(verdict);
        if (request.traceSpan !== undefined) recordVerdict(request.traceSpan, verdict);
        reply.headers(verdict.responseFields);
        if (!verdict.allowed) return refuse(request, reply, verdict.error);
        return reply
          .code(200)
          .headers(decisionHeaders(verdict, request, convention))
          .send();
      };
      // Envoy asks with the original method: every method the proxy forwards.
      for (const url of [convention.prefix, `${convention.prefix}/*`]) scope.route({ method: PROXIED_METHODS, url, config: { convention }, handler });
    }
    scope.route({
      method: PROXIED_METHODS,
      url: '/*',
      handler: () => {
        throw new GatewayError('decision_request_invalid', `The decision listener answers under ${CONVENTION_LIST.map((c) => c.prefix).join(', ')} only.`);
      },
    });
  });
}
