// Stage 3: is the authenticated caller allowed on this route. A client's token must carry every
// scope the route requires; a service account must call from an address in its allow-list and hold
// every permission the route requires.
import { boundedCache } from '../cache/bounded-cache.js';
import { GatewayError } from '../errors.js';
import { anyContains, parseCidrList, type Address, type Cidr } from '../net/cidr.js';
import type { PolicyRoute } from '../policy/policy-loader.js';
import type { ServiceAccountRecord } from '../store/types.js';
import type { IdentifiedRequest } from './identify.js';
import type { Principal } from './principal.js';

// Allow-lists were validated when stored; parsing them again per request is wasted work.
const parsedAllowLists = boundedCache<string, Cidr[]>(10_000);

function allowListOf(account: ServiceAccountRecord): Cidr[] {
  const key = account.allowedIps.join(',');
  let ranges = parsedAllowLists.get(key);
  if (!ranges) {
    ranges = parseCidrList(account.allowedIps);
    parsedAllowLists.set(key, ranges);
  }
  return ranges;
}

function checkServiceAccountAccess(account: ServiceAccountRecord, route: PolicyRoute, clientAddress: Address | undefined): void {
  if (!clientAddress || !anyContains(allowListOf(account), clientAddress)) {
    throw new GatewayError('ip_not_allowed', `The address ${clientAddress?.toString() ?? '(unknown)'} is not in this service account's allow-list.`);
  }
  const missing = route.permissions.filter((permission) => !account.permissions.includes(permission));
  if (missing.length > 0) throw new GatewayError('permission_denied', `This route requires the permission ${missing.join(', ')}.`);
}

/** Returns when the principal may use the request's route; throws the 403 that says why not. */
export function authorize(request: IdentifiedRequest, principal: Principal): void {
  const route = request.route;
  if (principal.kind === 'client') {
    const missing = route.scopes.filter((scope) => !principal.scopes.includes(scope));
    if (missing.length > 0) {
      const scope = route.scopes.join(' ');
      throw new GatewayError('insufficient_scope', `This route requires the scope ${missing.join(' ')}.`, {
        headers: { 'www-authenticate': `Bearer realm="gateway", error="insufficient_scope", scope="${scope}"` },
      });
    }
    return;
  }
  checkServiceAccountAccess(principal.account, route, request.clientAddress);
}
