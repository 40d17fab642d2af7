// The request pipeline of the public listener, in order:
//   1 identify      route, unambiguous path, client address        (400, 404)
//   2 authenticate  bearer token | Ed25519 request signature       (401, 503)
//   3 authorize     scope | IP allow-list and permission           (403)
//   3b limit        the route's rate limit, per credential; before
//                   admit, so a limited request burns no nonce     (429, 503)
//   3c admit        signed routes: consume the nonce, read the body
//                   and check its digest                           (401, 413, 503)
//   4 mutate        headers by rule: strip inbound credentials and
//                   client-chosen routing headers, set identity    (400)
//   5 proxy         forward exactly the path that was authorized   (502, 504)
// Nothing reaches an upstream unless stages 1-3c passed; no store write and no body read happens
// before the request is authenticated and authorized.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import httpProxy, { type FastifyHttpProxyOptions } from '@fastify/http-proxy';
import type { Settings } from '../config/settings.js';
import { GatewayError } from '../errors.js';
import { sendError } from '../http/error-reply.js';
import type { UpstreamName } from '../policy/policy-loader.js';
import type { RouteTable } from '../policy/route-table.js';
import type { Authenticators } from './authenticator.js';
import { authorize } from './authorize.js';
import type { RequestContext } from './context.js';
import { identify } from './identify.js';
import { limit, withRateLimitFields, type RateLimitStore } from './limit.js';
import { downstreamHeaders, upstreamHeaders } from './mutate.js';

export interface PipelineDependencies {
  settings: Pick<Settings, 'trustedProxies' | 'upstreamTimeoutMs'>;
  upstreams: Record<UpstreamName, string>;
  routes: () => RouteTable;
  authenticators: Authenticators;
  /** Counts requests on rate-limited routes (the credential store). */
  rateLimits: RateLimitStore;
  /** Called once a request is authorized, before it is forwarded. */
  onAuthorized?: (context: RequestContext, request: FastifyRequest) => void;
  /** Where the authentication stage's duration goes (seconds). */
  observe?: { authentication: { observe(seconds: number): void } };
}

function contextOf(request: FastifyRequest): RequestContext {
  if (!request.gateway) throw new GatewayError('internal_error', 'the request reached the proxy without passing the pipeline');
  return request.gateway;
}

function upstreamError(error: { statusCode?: number; code?: string }): GatewayError {
  const timedOut = error.statusCode === 504 || /TIMEOUT/i.test(error.code ?? '');
  return new GatewayError(timedOut ? 'upstream_timeout' : 'upstream_unavailable');
}

export async function registerPipeline(app: FastifyInstance, deps: PipelineDependencies): Promise<void> {
  async function checkRequest(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const context = identify(request, deps.routes(), deps.settings);
    request.gateway = context;
    const authenticator = deps.authenticators[context.route.auth];
    const authenticating = performance.now();
    context.principal = await authenticator.authenticate(request, context);
    deps.observe?.authentication.observe((performance.now() - authenticating) / 1000);
    authorize(context);
    await limit(deps.rateLimits, context, reply);
    await authenticator.admit?.(request, reply, context);
    deps.onAuthorized?.(context, request);
    context.forwardedAt = performance.now();
  }

  const proxyOptions: FastifyHttpProxyOptions = {
    upstream: '',
    prefix: '/',
    preHandler: checkRequest,
    undici: { headersTimeout: deps.settings.upstreamTimeoutMs, bodyTimeout: deps.settings.upstreamTimeoutMs, connectTimeout: Math.min(deps.settings.upstreamTimeoutMs, 5000) },
    replyOptions: {
      getUpstream: (request) => deps.upstreams[contextOf(request as FastifyRequest).route.upstream],
      rewriteRequestHeaders: (request, headers) =>
        upstreamHeaders(headers, contextOf(request as FastifyRequest), { requestId: String(request.id), host: request.headers.host, protocol: (request as FastifyRequest).protocol }),
      rewriteHeaders: (headers, request) => withRateLimitFields(downstreamHeaders(headers), (request as FastifyRequest | undefined)?.gateway),
      // The query exactly as received and authorized (the proxy would otherwise re-serialise it).
      queryString: (_search, _url, request) => contextOf(request as FastifyRequest).target.query,
      onError: (rawReply, { error }) => {
        const reply = rawReply as FastifyReply;
        reply.request.log.warn({ code: (error as { code?: string }).code }, 'upstream request failed');
        sendError(reply.request, reply, upstreamError(error as { statusCode?: number; code?: string }));
      },
    },
    // Forward exactly the path that was authorized. The signature stage buffered and verified
    // the body: forward exactly those bytes.
    handler: (request, reply, _dest, options) => {
      const { target, body } = contextOf(request);
      if (body === undefined) return reply.from(target.path, options);
      return reply.from(target.path, { ...options, body, contentType: request.headers['content-type'] ?? 'application/octet-stream' });
    },
  };
  await app.register(httpProxy, proxyOptions);
}
