// The CheckResponse for a verdict, as the HTTP decision answers it (decision-exchange.ts) in Envoy's
// gRPC terms. Allowed: status OK and an ok_response with the identity headers the proxy would send
// upstream (replacing whatever the client sent under those names), the headers the proxy's rule
// drops in headers_to_remove, a rate-limited route's RateLimit fields for the client, and the
// principal and route as dynamic metadata for later filters and access logs. Refused: a non-OK
// google.rpc status and a denied_response with the proxy's status, JSON error body and headers.
import { status as rpc } from '@grpc/grpc-js';
import type { GatewayError } from '../../errors.js';
import { errorBody } from '../../http/error-reply.js';
import type { Allowed, ResponseFields } from '../../pipeline/verdict.js';
import { envoyHeadersToRemove } from '../envoy-headers-to-remove.js';
import { OVERWRITE_IF_EXISTS_OR_ADD, type CheckResponse, type HeaderValueOption, type Struct } from './check-messages.js';

function option(key: string, value: string): HeaderValueOption {
  return { header: { key, value }, append_action: OVERWRITE_IF_EXISTS_OR_ADD };
}

function options(fields: Readonly<Record<string, string>>): HeaderValueOption[] {
  return Object.entries(fields).map(([key, value]) => option(key, value));
}

function struct(fields: Record<string, string | undefined>): Struct {
  const out: Struct['fields'] = {};
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) out[name] = { stringValue: value };
  return { fields: out };
}

/** Who the request is from and its route, for Envoy's filters after ext_authz (%DYNAMIC_METADATA(envoy.filters.http.ext_authz:...)%). */
function decisionMetadata(verdict: Allowed, requestId: string): Struct {
  const principal = verdict.principal;
  const who =
    principal.kind === 'client'
      ? { client_id: principal.clientId, scopes: principal.scopes.join(' '), account_id: principal.accountId ?? undefined, dpop_jkt: principal.jkt }
      : {
          service_account_id: principal.account.id,
          permissions: principal.account.permissions.join(' '),
          account_id: principal.account.accountId ?? undefined,
        };
  return struct({
    request_id: requestId,
    route: verdict.request.route.id,
    principal: principal.kind,
    ...who,
    digest: verdict.identityHeaders['x-gateway-digest'],
  });
}

/** `received`: the header names the Check described, of which the rule's dropped ones are removed. */
export function allowedAnswer(verdict: Allowed, requestId: string, received: readonly string[]): CheckResponse {
  const identity: Record<string, string> = { ...verdict.identityHeaders, 'x-request-id': requestId };
  // Only the answered names are kept: an identity header the client sent that this answer leaves
  // out (x-gateway-service-account-id on a Bearer request) is removed with the rule's other drops.
  const answered = new Set(Object.keys(identity));
  return {
    status: { code: rpc.OK },
    ok_response: {
      headers: options(identity),
      headers_to_remove: envoyHeadersToRemove(received, answered),
      response_headers_to_add: options(verdict.responseFields),
    },
    dynamic_metadata: decisionMetadata(verdict, requestId),
  };
}

/** The google.rpc.Code of a refusal, by its HTTP status (and the timeout by its own). */
export function rpcCodeOf(error: GatewayError): number {
  if (error.code === 'decision_timeout') return rpc.DEADLINE_EXCEEDED;
  switch (error.status) {
    case 401:
      return rpc.UNAUTHENTICATED;
    case 403:
    case 421:
      return rpc.PERMISSION_DENIED;
    case 404:
      return rpc.NOT_FOUND;
    case 408:
    case 504:
      return rpc.DEADLINE_EXCEEDED;
    case 429:
      return rpc.RESOURCE_EXHAUSTED;
    case 502:
    case 503:
      return rpc.UNAVAILABLE;
    default:
      return error.status >= 500 ? rpc.INTERNAL : rpc.INVALID_ARGUMENT;
  }
}

export function refusedAnswer(error: GatewayError, requestId: string, fields: ResponseFields): CheckResponse {
  const headers: Record<string, string> = {
    'content-type': 'application/json; charset=utf-8',
    // The code and request id in headers too, as the HTTP decision answers them.
    'x-gateway-error': error.code,
    'x-request-id': requestId,
    ...error.headers,
    ...fields,
  };
  return {
    status: { code: rpcCodeOf(error), message: `${error.code}: ${error.message}` },
    denied_response: { status: { code: error.status }, headers: options(headers), body: JSON.stringify(errorBody(error, requestId)) },
  };
}
