// The proxy on the public listener: runs the checks (stages 1-5) on the request it received and
// applies their verdict to its own reply: a refusal is answered with the verdict's error, an allowed
// request gets its headers by rule (stage 6) and is forwarded (stage 7).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../errors.js';
import { peerAddressOf } from '../net/client-ip.js';
import { exchangeBody } from './body-source.js';
import { Forwarder, type UpstreamTarget } from './forward.js';
import type { ResponseSigning } from './response-signing.js';
import { upstreamHeaders } from './mutate.js';
import { receivedOriginal } from './original-request.js';
import { PROXIED_METHODS, requestChecker, type CheckDependencies } from './pipeline.js';
import { verdictLogFields, type Allowed } from './verdict.js';
import { recordProxiedRoute, recordVerdict } from './verdict-attributes.js';
import type { Tracing } from '../tracing/tracing.js';

export interface ProxyDependencies extends CheckDependencies {
  /** Every upstream with a URL, by name: each gets its own connection pool. */
  upstreams: Readonly<Record<string, UpstreamTarget>>;
  /** How the responses of message_signing routes are signed. */
  responseSigning: ResponseSigning;
  /** Set when tracing is on: each upstream call is a CLIENT span (upstream-span.ts). */
  tracing: Tracing | undefined;
}

function allowedVerdictOf(request: FastifyRequest): Allowed {
  if (!request.verdict?.allowed) throw new GatewayError('internal_error', 'the request reached the proxy without passing the pipeline');
  return request.verdict;
}

/** Registers the proxy; resolves to what closes its upstream connection pools. */
export async function registerProxy(app: FastifyInstance, deps: ProxyDependencies): Promise<() => Promise<void>> {
  const check = requestChecker(deps);
  async function checkRequest(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const verdict = await check({
      original: receivedOriginal(request),
      peer: peerAddressOf(request.socket),
      body: exchangeBody(request, reply),
      log: request.log,
    });
    request.verdict = verdict;
    request.logFields = verdictLogFields(verdict);
    const span = request.traceSpan;
    if (span !== undefined) {
      recordVerdict(span, verdict);
      recordProxiedRoute(span, verdict);
    }
    // On every answer from here on: a later refusal, the gateway's own 502 or 504 too.
    reply.headers(verdict.responseFields);
    if (!verdict.allowed) throw verdict.error;
    request.forwardedAt = performance.now();
  }

  const forwarder = new Forwarder(deps.upstreams, deps.responseSigning, deps.tracing);
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
        const verdict = allowedVerdictOf(request);
        const headers = upstreamHeaders(request.headers, verdict, {
          requestId: String(request.id),
          host: request.headers.host,
          protocol: verdict.request.original.protocol,
        });
        return forwarder.forward(request, reply, verdict, headers);
      },
    });
  });
  return () => forwarder.close();
}
