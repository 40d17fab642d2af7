// The decision listener: edge proxies (nginx auth_request, Envoy ext_authz, Traefik forwardAuth)
// ask whether a request may pass. It runs the proxy's own checks (pipeline stages 1-3c, nonce
// consumed and, when the body is sent, its digest checked) and answers
//   200 with the identity headers the proxy would have sent upstream, for the edge to copy; or
//   the proxy's refusal: status, error body, WWW-Authenticate, Accept-Signature, Retry-After.
// Only trusted proxies may ask: the decision believes its caller's description of the request and
// its X-Forwarded-For, so a client that reached this listener could choose its own address.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Settings } from '../config/settings.js';
import { GatewayError } from '../errors.js';
import { audit } from '../http/audit.js';
import { loggedAsFailure, sendError, toGatewayError } from '../http/error-reply.js';
import type { GatewayMetrics } from '../metrics/metrics.js';
import { anyContains } from '../net/cidr.js';
import { peerAddressOf } from '../net/client-ip.js';
import type { RequestContext } from '../pipeline/context.js';
import { principalHeaders } from '../pipeline/mutate.js';
import { PROXIED_METHODS, type RequestChecker } from '../pipeline/pipeline.js';
import { digestLeftToUpstream } from '../pipeline/withheld-body.js';
import { CONVENTION_LIST, type Convention } from './conventions.js';

/** Says the upstream must check the body against the signed Content-Digest (policy digest: upstream). */
const DIGEST_DELEGATED_HEADER = 'x-gateway-digest';

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

function decisionHeaders(context: RequestContext, request: FastifyRequest, convention: Convention): Record<string, string> {
  const headers = principalHeaders(context, { 'x-request-id': String(request.id) });
  if (digestLeftToUpstream(context)) headers[DIGEST_DELEGATED_HEADER] = 'upstream';
  convention.completeAllowed?.(request, headers);
  return headers;
}

function refuse(request: FastifyRequest, reply: FastifyReply, thrown: unknown): FastifyReply {
  const error = toGatewayError(thrown);
  if (loggedAsFailure(error)) request.log.error({ err: thrown, code: error.code }, 'decision failed');
  // The code and request id in headers too: nginx keeps the status and headers of a refusal, not its body.
  reply.header('x-gateway-error', error.code).header('x-request-id', String(request.id));
  const allowed = reply.routeOptions.config.convention?.refusalStatuses;
  return sendError(request, reply, error, allowed && !allowed.includes(error.status) ? 403 : error.status);
}

export async function registerDecision(app: FastifyInstance, deps: DecisionDependencies): Promise<void> {
  // Its own scope: the decision's refusals replace the listener's default error answers.
  await app.register(async (scope) => {
    scope.addHook('onRequest', async (request) => {
      const peer = peerAddressOf(request.socket);
      if (!peer || !anyContains(deps.settings.trustedProxies, peer)) throw new GatewayError('decision_caller_not_trusted');
    });
    scope.setErrorHandler((error, request, reply) => refuse(request, reply, error));
    scope.addHook('onResponse', async (request, reply) => {
      const convention = reply.routeOptions.config.convention?.name ?? 'none';
      const route = request.gateway?.route.id ?? 'unmatched';
      const outcome = request.errorCode ?? 'allowed';
      deps.metrics.decisions.inc({ convention, route, outcome });
      deps.metrics.decisionDuration.observe({ convention, outcome }, reply.elapsedTime / 1000);
      if (request.errorCode) audit(request.log, 'request.denied', { mode: 'decision', convention, reason: request.errorCode, scheme: request.gateway?.route.auth ?? null, route, status: reply.statusCode, address: request.gateway?.clientAddress?.toString() ?? null });
    });

    // Bodies are not parsed: a signed route reads the body the edge proxy sent (if any) in its admit stage.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    for (const convention of CONVENTION_LIST) {
      const handler = async (request: FastifyRequest, reply: FastifyReply) => {
        const context = await deps.check(request, reply, convention.describe(request));
        return reply.code(200).headers(decisionHeaders(context, request, convention)).send();
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
