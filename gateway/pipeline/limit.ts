// Stage 4: the route's rate limit, counted per credential (the OAuth client, or the service
// account by its management id) in one store round trip. It runs once the request is authenticated
// and authorized, so refused credentials never spend anyone's quota, and before admission, so a
// limited signed request neither burns its nonce nor has its body read. Routes without a limit cost
// nothing. A request is charged once, even when it is checked twice (pipeline.ts).
//
// The answer carries the fields of draft-ietf-httpapi-ratelimit-headers-11 (the syntax of these two
// fields is unchanged since -09), on the 429 and on every response of a request it let through:
//   RateLimit-Policy: "<route id>";q=<requests>;w=<window seconds>
//   RateLimit: "<route id>";r=<requests left now>;t=<seconds>
// t is when the whole quota is back on an allowed request, and equals Retry-After on a 429 (the
// draft: Retry-After must not point before the end of the effective window).
import { GatewayError } from '../errors.js';
import { serializeString } from '@access-gateway/signing/structured-fields';
import type { PolicyRoute } from '../policy/policy-loader.js';
import type { RateLimitRule } from '../policy/rate-limit-rule.js';
import type { CredentialStore } from '../store/types.js';
import type { IdentifiedRequest } from './identify.js';
import type { Principal } from './principal.js';

export type RateLimitStore = Pick<CredentialStore, 'takeRateLimit'>;

export type RateLimitFields = Readonly<Record<'ratelimit-policy' | 'ratelimit', string>>;

/** One unit of a route's quota, taken for one credential. */
export interface RateLimitUnit {
  readonly credential: string;
  readonly routeId: string;
  /** The RateLimit fields of the request it was taken for. */
  readonly fields: RateLimitFields;
}

function credentialOf(principal: Principal): string {
  return principal.kind === 'client' ? principal.clientId : principal.account.id;
}

/** The route's name and policy in the RateLimit fields: fixed per route, built once. */
interface FieldParts {
  name: string;
  policy: string;
}
const fieldParts = new WeakMap<PolicyRoute, FieldParts>();

function partsOf(route: PolicyRoute, rule: RateLimitRule): FieldParts {
  let parts = fieldParts.get(route);
  if (!parts) {
    // An RFC 8941 String; the loader allows only printable ASCII in a limited route's id.
    const name = serializeString(route.id);
    parts = { name, policy: `${name};q=${rule.requests};w=${rule.perSeconds}` };
    fieldParts.set(route, parts);
  }
  return parts;
}

/**
 * Takes one unit of the route's quota for the principal, or throws 429 rate_limited (with Retry-After
 * and the fields). Resolves to the unit, or undefined on a route without a limit. `taken` is the unit
 * this request's first pass took, when it is checked again: the same credential on the same route
 * is not charged twice.
 */
export async function limit(
  store: RateLimitStore,
  request: IdentifiedRequest,
  principal: Principal,
  taken?: RateLimitUnit,
): Promise<RateLimitUnit | undefined> {
  const route = request.route;
  const rule = route.rateLimit;
  if (!rule) return undefined;
  const credential = credentialOf(principal);
  if (taken?.credential === credential && taken.routeId === route.id) return taken;
  const decision = await store.takeRateLimit(credential, route.id, rule);
  const { name, policy } = partsOf(route, rule);
  if (!decision.allowed) {
    const wait = decision.retryAfterSeconds;
    throw new GatewayError(
      'rate_limited',
      `This credential may send ${rule.requests} requests per ${rule.perSeconds} seconds to this route; retry in ${wait} seconds.`,
      {
        headers: { 'retry-after': String(wait), 'ratelimit-policy': policy, ratelimit: `${name};r=0;t=${wait}` },
      },
    );
  }
  return { credential, routeId: route.id, fields: { 'ratelimit-policy': policy, ratelimit: `${name};r=${decision.remaining};t=${decision.resetSeconds}` } };
}
