// Stage 1: which route is this, is its path unambiguous, and who is the client.
import type { Settings } from '../config/settings.js';
import { GatewayError } from '../errors.js';
import type { Address } from '../net/cidr.js';
import { clientAddressFrom } from '../net/client-ip.js';
import { checkTarget, type SafeTarget } from '../policy/path-safety.js';
import type { PolicyRoute } from '../policy/policy-loader.js';
import type { RouteTable } from '../policy/route-table.js';
import { checkWithheldBody } from './withheld-body.js';
import { hostOfAuthority, type OriginalRequest } from './original-request.js';

/** A request matched to its route: what every later stage decides on. */
export interface IdentifiedRequest {
  /** The request decided on: received by the proxy, or described by an edge proxy. */
  readonly original: OriginalRequest;
  readonly target: SafeTarget;
  readonly route: PolicyRoute;
  readonly clientAddress: Address | undefined;
}

/**
 * The route and client of a request. The client address is the socket peer's, or, when the peer is
 * a trusted proxy (an edge proxy asking for a decision always is), its X-Forwarded-For client.
 */
export function identify(
  original: OriginalRequest,
  peer: Address | undefined,
  routes: RouteTable,
  settings: Pick<Settings, 'trustedProxies'>,
): IdentifiedRequest {
  const target = checkTarget(original.url);
  const route = routes.match(original.method, hostOfAuthority(original.authority), target.segments);
  if (!route) throw new GatewayError('route_not_found', `No route matches ${original.method} ${target.path}.`);
  checkWithheldBody(original, route);
  return { original, target, route, clientAddress: clientAddressFrom(peer, original.headers['x-forwarded-for'], settings.trustedProxies) };
}
