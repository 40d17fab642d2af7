// The request pipeline, in order; one file (or folder) per stage. The checks, stages 1-5, run on the
// described request (original-request.ts) and conclude in a verdict (verdict.ts); the proxy
// (proxy.ts) runs them on the request it received and forwards what they allow (stages 6-7); the
// decision listener (gateway/decision) runs them on the request an edge proxy describes and answers
// for it. Observation is one hook for both listeners (observe.ts).
//   1 identify      identify.ts      route, unambiguous path, client address        (400, 403, 404)
//   2 authenticate  authenticate/    bearer.ts: token, and a DPoP proof for a bound
//                                    one, and on a message_signing route the client's
//                                    FAPI request signature (fapi-signature.ts) |
//                                    signature/: Ed25519 request signature;
//                                    read-only                                      (401, 503)
//   3 authorize     authorize.ts     scope | IP allow-list and permission           (403)
//   4 limit         limit.ts         the route's rate limit, per credential; before
//                                    admit, so a limited request burns no nonce     (429, 503)
//   5 admit         admit.ts         a DPoP proof: consume its jti; signed routes
//                                    (either kind): consume the nonce, read the body
//                                    and check its digest; a service account changed
//                                    since stage 2 read it runs 1-5 once more, its
//                                    rate-limit unit carried, not taken again        (401, 413, 503)
//   6 mutate        mutate.ts        headers by rule: strip inbound credentials and
//                                    client-chosen routing headers, set identity    (400)
//   7 forward       forward.ts       exactly the path that was authorized; a
//                                    message_signing route's response signed
//                                    (signed-response-relay.ts)                     (502, 504)
// Nothing reaches an upstream unless stages 1-5 passed; no store write and no body read happens
// before the request is authenticated and authorized.
import type { FastifyBaseLogger, HTTPMethods } from 'fastify';
import type { Settings } from '../config/settings.js';
import { toGatewayError } from '../http/error-reply.js';
import type { Address } from '../net/cidr.js';
import type { RouteTable } from '../policy/route-table.js';
import { admit } from './admit.js';
import { CredentialChangedError, type Authenticators } from './authenticate/authenticator.js';
import { authorize } from './authorize.js';
import type { BodySource } from './body-source.js';
import { identify, type IdentifiedRequest } from './identify.js';
import { limit, type RateLimitStore, type RateLimitUnit } from './limit.js';
import type { OriginalRequest } from './original-request.js';
import { identityHeaders, NO_FIELDS, type Allowed, type Verdict } from './verdict.js';

/** The methods the proxy forwards (and a decision is asked about); anything else is answered 404 by the gateway itself. */
export const PROXIED_METHODS: HTTPMethods[] = ['DELETE', 'GET', 'HEAD', 'PATCH', 'POST', 'PUT', 'OPTIONS'];

/** What the checks (stages 1-5) need. */
export interface CheckDependencies {
  settings: Pick<Settings, 'trustedProxies'>;
  routes: () => RouteTable;
  authenticators: Authenticators;
  /** Counts requests on rate-limited routes (the credential store). */
  rateLimits: RateLimitStore;
  /** Called once a request passed every check, before it is forwarded or answered for. */
  onAllowed?: (verdict: Allowed) => void;
  /** Where the authentication stage's duration goes (seconds). */
  observe?: { authentication: { observe(seconds: number): void } };
}

/** One request to check, as the listener it arrived on describes it. */
export interface CheckInput {
  readonly original: OriginalRequest;
  /** The socket peer: the client, or a trusted proxy that names it in X-Forwarded-For. */
  readonly peer: Address | undefined;
  readonly body: BodySource;
  /** The exchange's log, for a scheme's own account of a refusal. */
  readonly log: FastifyBaseLogger;
}

/** The checks, stages 1-5: never throws; a refusal is a verdict too. */
export type RequestChecker = (input: CheckInput) => Promise<Verdict>;

/** What a pass has learnt so far: what a refusal reports, and what a second pass carries. */
interface Progress {
  request?: IdentifiedRequest;
  unit?: RateLimitUnit;
}

async function checkOnce(deps: CheckDependencies, input: CheckInput, progress: Progress): Promise<Allowed> {
  progress.request = undefined;
  const request = identify(input.original, input.peer, deps.routes(), deps.settings);
  progress.request = request;
  const authenticating = performance.now();
  const authentication = await deps.authenticators[request.route.auth].authenticate(request, input.log);
  deps.observe?.authentication.observe((performance.now() - authenticating) / 1000);
  const principal = authentication.principal;
  authorize(request, principal);
  progress.unit = await limit(deps.rateLimits, request, principal, progress.unit);
  const body = await admit(authentication, input.body);
  return {
    allowed: true,
    request,
    principal,
    identityHeaders: identityHeaders(request, principal),
    responseFields: progress.unit?.fields ?? NO_FIELDS,
    body,
    answered: authentication.answered,
  };
}

export function requestChecker(deps: CheckDependencies): RequestChecker {
  return async (input) => {
    const progress: Progress = {};
    try {
      let verdict: Allowed;
      try {
        verdict = await checkOnce(deps, input, progress);
      } catch (error) {
        if (!(error instanceof CredentialChangedError)) throw error;
        // Stage 5 found the credential changed since stage 2 used this instance's copy: every stage
        // again, from the store, with the rate-limit unit the first pass took.
        verdict = await checkOnce(deps, input, progress);
      }
      deps.onAllowed?.(verdict);
      return verdict;
    } catch (error) {
      return { allowed: false, error: toGatewayError(error), request: progress.request, responseFields: progress.unit?.fields ?? NO_FIELDS };
    }
  };
}
