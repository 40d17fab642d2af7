// What the checks (stages 1-5) conclude about a request, as a value: the proxy forwards an allowed
// request, the decision listener answers for it, and each sets the verdict's fields on its own reply.
import type { GatewayError } from '../errors.js';
import type { AnsweredRequest } from '../signing/response-signature.js';
import type { IdentifiedRequest } from './identify.js';
import type { Principal } from './principal.js';
import { DIGEST_DELEGATED_HEADER, digestLeftToUpstream } from './withheld-body.js';

/** Response header fields the client gets whatever the answer (RateLimit-* on a rate-limited route); List-valued. */
export type ResponseFields = Readonly<Record<string, string>>;

export const NO_FIELDS: ResponseFields = Object.freeze({});

export interface Allowed {
  readonly allowed: true;
  readonly request: IdentifiedRequest;
  readonly principal: Principal;
  /** Who the request is from, as the gateway vouches for it: sent upstream, or in a decision's answer. */
  readonly identityHeaders: Readonly<Record<string, string>>;
  readonly responseFields: ResponseFields;
  /** The exact body bytes a signed route verified, forwarded instead of the stream; undefined: none were read. */
  readonly body: Buffer | undefined;
  /** A FAPI-signed request: the proxy signs the response over these request components (response-signature.ts). */
  readonly answered?: AnsweredRequest;
}

export interface Refused {
  readonly allowed: false;
  /** The catalog error the client is answered with. */
  readonly error: GatewayError;
  /** How far the checks got: the identified request, once stage 1 passed (route and client for metrics and audit). */
  readonly request: IdentifiedRequest | undefined;
  /** Fields earned before the refusal: a request refused after its limit passed still shows its quota. */
  readonly responseFields: ResponseFields;
}

export type Verdict = Allowed | Refused;

/** What the request's log line says of the verdict: the route and who the request was from (never a credential). */
export function verdictLogFields(verdict: Verdict): Record<string, string | null> {
  const route = verdict.request?.route.id ?? null;
  if (!verdict.allowed) return { route };
  const principal = verdict.principal;
  return principal.kind === 'client' ? { route, client_id: principal.clientId } : { route, service_account_id: principal.account.id };
}

/** The identity headers of an allowed request. */
export function identityHeaders(request: IdentifiedRequest, principal: Principal): Record<string, string> {
  const headers: Record<string, string> = {};
  if (principal.kind === 'client') {
    headers['x-gateway-client-id'] = principal.clientId;
    headers['x-gateway-scopes'] = principal.scopes.join(' ');
    if (principal.accountId) headers['x-gateway-account-id'] = principal.accountId;
    if (principal.jkt) headers['x-gateway-dpop-jkt'] = principal.jkt;
  } else {
    headers['x-gateway-service-account-id'] = principal.account.id;
    headers['x-gateway-permissions'] = principal.account.permissions.join(' ');
    if (principal.account.accountId) headers['x-gateway-account-id'] = principal.account.accountId;
  }
  // Only a decision can leave the body to the upstream: the proxy always reads and checks it.
  if (digestLeftToUpstream(request)) headers[DIGEST_DELEGATED_HEADER] = 'upstream';
  return headers;
}
