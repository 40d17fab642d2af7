// What the checks decided, on the request's SERVER span, set when the verdict is reached (by the
// proxy and by the decision listener alike): the auth method, allow or deny, the refusal's error
// code, the policy route and who the request was from: an OAuth client id or a service account's
// id, never its Access ID, and never a token, secret or signature.
import type { Span } from '@opentelemetry/api';
import { ATTR } from '../tracing/span-attributes.js';
import type { OriginalRequest } from './original-request.js';
import type { Verdict } from './verdict.js';

/** bearer, dpop (a DPoP-bound token, or a request presenting one) or signature. */
function authMethodOf(verdict: Verdict): string | undefined {
  const route = verdict.request?.route;
  if (route === undefined) return undefined;
  if (route.auth !== 'bearer') return route.auth;
  if (verdict.allowed) return verdict.principal.kind === 'client' && verdict.principal.jkt !== undefined ? 'dpop' : 'bearer';
  return presentsDpop(verdict.request!.original) ? 'dpop' : 'bearer';
}

function presentsDpop(original: OriginalRequest): boolean {
  const authorization = original.headers.authorization;
  return typeof authorization === 'string' && /^dpop /i.test(authorization);
}

export function recordVerdict(span: Span, verdict: Verdict): void {
  if (!span.isRecording()) return;
  const identified = verdict.request;
  if (identified !== undefined) {
    span.setAttribute(ATTR.route, identified.route.id);
    span.setAttribute(ATTR.authMethod, authMethodOf(verdict)!);
  }
  span.setAttribute(ATTR.authDecision, verdict.allowed ? 'allow' : 'deny');
  if (!verdict.allowed) {
    span.setAttribute(ATTR.authReason, verdict.error.code);
    return;
  }
  const principal = verdict.principal;
  if (principal.kind === 'client') span.setAttribute(ATTR.clientId, principal.clientId);
  else span.setAttribute(ATTR.serviceAccountId, principal.account.id);
}

/** The proxy's span is named after the policy route it served (its own route is a catch-all). */
export function recordProxiedRoute(span: Span, verdict: Verdict): void {
  const route = verdict.request?.route;
  if (route === undefined || !span.isRecording()) return;
  span.setAttribute(ATTR.httpRoute, route.template);
  span.updateName(`${verdict.request!.original.method} ${route.template}`);
}
