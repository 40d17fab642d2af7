// Service-account authorization: the client address must be in the account's allow-list, and
// the account must hold every permission the route requires.
import { GatewayError } from '../errors.js';
import { anyContains, parseCidrList, type Address, type Cidr } from '../net/cidr.js';
import type { PolicyRoute } from '../policy/policy-loader.js';
import type { ServiceAccountRecord } from '../store/types.js';

// Allow-lists were validated when stored; parsing them again per request is wasted work.
const parsedAllowLists = new Map<string, Cidr[]>();
const MAX_CACHED_ALLOW_LISTS = 10_000;

function allowListOf(account: ServiceAccountRecord): Cidr[] {
  const key = account.allowedIps.join(',');
  let ranges = parsedAllowLists.get(key);
  if (!ranges) {
    ranges = parseCidrList(account.allowedIps);
    if (parsedAllowLists.size >= MAX_CACHED_ALLOW_LISTS) parsedAllowLists.clear();
    parsedAllowLists.set(key, ranges);
  }
  return ranges;
}

export function checkServiceAccountAccess(account: ServiceAccountRecord, route: PolicyRoute, clientAddress: Address | undefined): void {
  if (!clientAddress || !anyContains(allowListOf(account), clientAddress)) {
    throw new GatewayError('ip_not_allowed', `The address ${clientAddress?.toString() ?? '(unknown)'} is not in this service account's allow-list.`);
  }
  const missing = route.permissions.filter((permission) => !account.permissions.includes(permission));
  if (missing.length > 0) throw new GatewayError('permission_denied', `This route requires the permission ${missing.join(', ')}.`);
}
