// A signed body the gateway cannot see. An edge proxy that asks for a decision without sending the
// body (nginx auth_request never does) leaves the digest unchecked: such a request is allowed only
// on a route whose policy delegates the check to the upstream (digest: upstream), and the decision
// then says so (x-gateway-digest: upstream). No request with an unchecked body is allowed silently.
import { GatewayError } from '../errors.js';
import type { PolicyRoute } from '../policy/policy-loader.js';
import type { OriginalRequest } from './original-request.js';

export function checkWithheldBody(original: OriginalRequest, route: PolicyRoute): void {
  if (bodyLeftToUpstream(original, route) && route.digest !== 'upstream') {
    throw new GatewayError(
      'body_not_checkable',
      `This request carries a body that the edge proxy does not send to the decision (over HTTP/2 or HTTP/3 without a Content-Length, a body the edge cannot rule out counts as one), and route ${route.id} does not delegate the Content-Digest check to its upstream (digest: upstream); send the body to the decision (Envoy with_request_body, Traefik forwardBody) or delegate the check.`,
    );
  }
}

function bodyLeftToUpstream(original: OriginalRequest, route: PolicyRoute): boolean {
  return original.body === 'withheld' && original.hasBody && bodyIsSigned(route);
}

/** A route whose requests sign their body's Content-Digest: the gateway checks the bytes against it. */
function bodyIsSigned(route: PolicyRoute): boolean {
  return route.auth === 'signature' || route.messageSigning !== 'none';
}

/** Says the upstream must check the body against the signed Content-Digest (policy digest: upstream). */
export const DIGEST_DELEGATED_HEADER = 'x-gateway-digest';

/** For a request that passed every check: the upstream must check its body against the signed Content-Digest. */
export function digestLeftToUpstream(request: { original: OriginalRequest; route: PolicyRoute }): boolean {
  return bodyLeftToUpstream(request.original, request.route);
}
