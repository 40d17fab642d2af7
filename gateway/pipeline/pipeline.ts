// The request pipeline, in order. The public listener runs every stage; the decision listener
// (gateway/decision) runs the checks, stages 1-3c, on the request an edge proxy describes, and
// answers with the identity headers of stage 4 instead of forwarding.
//   1 identify      route, unambiguous path, client address        (400, 403, 404)
//   2 authenticate  bearer token | Ed25519 request signature       (401, 503)
//   3 authorize     scope | IP allow-list and permission           (403)
//   3b limit        the route's rate limit, per credential; before
//                   admit, so a limited request burns no nonce     (429, 503)
//   3c admit        signed routes: consume the nonce, read the body
//                   and check its digest; a service account changed
//                   since stage 2 read it runs 1-3c once more      (401, 413, 503)
//   4 mutate        headers by rule: strip inbound credentials and
//                   client-chosen routing headers, set identity    (400)
//   5 proxy         forward exactly the path that was authorized   (502, 504)
// Nothing reaches an upstream unless stages 1-3c passed; no store write and no body read happens
// before the request is authenticated and authorized.
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import type { Settings } from '../config/settings.js';
import { GatewayError } from '../errors.js';
import type { UpstreamName } from '../policy/policy-loader.js';
import type { RouteTable } from '../policy/route-table.js';
import { CredentialChangedError, type Authenticators } from './authenticate/authenticator.js';
import { authorize } from './authorize.js';
import type { RequestContext } from './context.js';
import { Forwarder } from './forward.js';
import { peerAddressOf } from '../net/client-ip.js';
import { identify } from './identify.js';
import { limit, type RateLimitStore } from './limit.js';
import { upstreamHeaders } from './mutate.js';
import { receivedOriginal, type OriginalRequest } from './original-request.js';

/** The methods the proxy forwards (and a decision is asked about); anything else is answered 404 by the gateway itself. */
export const PROXIED_METHODS: HTTPMethods[] = ['DELETE', 'GET', 'HEAD', 'PATCH', 'POST', 'PUT', 'OPTIONS'];

/** What the checks (stages 1-3c) need. */
export interface CheckDependencies {
  settings: Pick<Settings, 'trustedProxies'>;
  routes: () => RouteTable;
  authenticators: Authenticators;
  /** Counts requests on rate-limited routes (the credential store). */
  rateLimits: RateLimitStore;
  /** Called once a request is authorized, before it is forwarded. */
  onAuthorized?: (context: RequestContext, request: FastifyRequest) => void;
  /** Where the authentication stage's duration goes (seconds). */
  observe?: { authentication: { observe(seconds: number): void } };
}

export interface PipelineDependencies extends CheckDependencies {
  settings: Pick<Settings, 'trustedProxies' | 'upstreamTimeoutMs'>;
  upstreams: Record<UpstreamName, string>;
}

/** The request's checks, stages 1-3c: resolves to its context when every one passed, else throws the refusal. */
export type RequestChecker = (request: FastifyRequest, reply: FastifyReply, original: OriginalRequest) => Promise<RequestContext>;

export function requestChecker(deps: CheckDependencies): RequestChecker {
  const checkOnce: RequestChecker = async (request, reply, original) => {
    const context = identify(original, peerAddressOf(request.socket), deps.routes(), deps.settings);
    request.gateway = context;
    const authenticator = deps.authenticators[context.route.auth];
    const authenticating = performance.now();
    context.principal = await authenticator.authenticate(request, context);
    deps.observe?.authentication.observe((performance.now() - authenticating) / 1000);
    authorize(context);
    await limit(deps.rateLimits, context, reply);
    await authenticator.admit?.(request, reply, context);
    deps.onAuthorized?.(context, request);
    return context;
  };
  return async (request, reply, original) => {
    try {
      return await checkOnce(request, reply, original);
    } catch (error) {
      // 3c found the credential changed since stage 2 used this instance's copy: every stage again, from the store.
      if (error instanceof CredentialChangedError) return checkOnce(request, reply, original);
      throw error;
    }
  };
}

function contextOf(request: FastifyRequest): RequestContext {
  if (!request.gateway) throw new GatewayError('internal_error', 'the request reached the proxy without passing the pipeline');
  return request.gateway;
}

/** Registers the proxy; resolves to what closes its upstream connection pools. */
export async function registerPipeline(app: FastifyInstance, deps: PipelineDependencies): Promise<() => Promise<void>> {
  const check = requestChecker(deps);
  async function checkRequest(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const context = await check(request, reply, receivedOriginal(request));
    context.forwardedAt = performance.now();
  }

  const forwarder = new Forwarder(deps.upstreams, deps.settings);
  await app.register(async (proxy) => {
    // Bodies are not parsed: a signed route reads and verifies its own in the admit stage, and any
    // other body streams through to the upstream untouched.
    proxy.removeAllContentTypeParsers();
    proxy.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    proxy.route({
      method: PROXIED_METHODS,
      url: '/*',
      preHandler: checkRequest,
      handler: (request, reply) => {
        const context = contextOf(request);
        const headers = upstreamHeaders(request.headers, context, { requestId: String(request.id), host: request.headers.host, protocol: context.original.protocol });
        return forwarder.forward(request, reply, context, headers);
      },
    });
  });
  return () => forwarder.close();
}
