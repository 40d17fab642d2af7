// A signed body the gateway cannot see. An edge proxy that asks for a decision without sending the
// body (nginx auth_request never does) leaves the digest unchecked: such a request is allowed only
// on a route whose policy delegates the check to the upstream (digest: upstream), and the decision
// then says so (x-gateway-digest: upstream). No request with an unchecked body is allowed silently.
import { GatewayError } from '../errors.js';
import type { PolicyRoute } from '../policy/policy-loader.js';
import type { OriginalRequest } from './original-request.js';

/** Methods whose routes carry a body: when the edge proxy keeps the body, assume these have one. */
const BODY_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH']);

export function checkWithheldBody(original: OriginalRequest, route: PolicyRoute): void {
  if (original.body !== 'withheld' || route.auth !== 'signature') return;
  // The edge proxy may not say whether a body came (it drops Content-Length): a route of a method
  // that carries one is taken to have one, so its signature must cover a Content-Digest.
  if (BODY_METHODS.has(route.method)) original.hasBody = true;
  if (original.hasBody && route.digest !== 'upstream') {
    throw new GatewayError('body_not_checkable', `This request carries a body that the edge proxy does not send to the decision, and route ${route.id} does not delegate the Content-Digest check to its upstream (digest: upstream); send the body to the decision (Envoy with_request_body, Traefik forwardBody) or delegate the check.`);
  }
}
