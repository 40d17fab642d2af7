// Stage 3b: the route's rate limit, counted per credential (the OAuth client, or the service
// account by its management id) in one store round trip. It runs once the request is authenticated
// and authorized, so refused credentials never spend anyone's quota, and before admit, so a limited
// signed request neither burns its nonce nor has its body read. Routes without a limit cost nothing.
//
// The answer carries the fields of draft-ietf-httpapi-ratelimit-headers-11 (the syntax of these two
// fields is unchanged since -09), on the 429 and on every response of a request it let through:
//   RateLimit-Policy: "<route id>";q=<requests>;w=<window seconds>
//   RateLimit: "<route id>";r=<requests left now>;t=<seconds>
// t is when the whole quota is back on an allowed request, and equals Retry-After on a 429 (the
// draft: Retry-After must not point before the end of the effective window).
import type { FastifyReply } from 'fastify';
import { GatewayError } from '../errors.js';
import { serializeString } from '../../clients/typescript/src/structured-fields.js';
import type { PolicyRoute } from '../policy/policy-loader.js';
import type { RateLimitRule } from '../policy/rate-limit-rule.js';
import type { CredentialStore } from '../store/types.js';
import type { Principal, RequestContext } from './context.js';

export type RateLimitStore = Pick<CredentialStore, 'takeRateLimit'>;

export const RATE_LIMIT_FIELDS = ['ratelimit-policy', 'ratelimit'] as const;
type RateLimitFields = Record<(typeof RATE_LIMIT_FIELDS)[number], string>;

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

export async function limit(store: RateLimitStore, context: RequestContext, reply: FastifyReply): Promise<void> {
  const { route, principal } = context;
  const rule = route.rateLimit;
  if (!rule) return;
  if (!principal) throw new GatewayError('internal_error', 'limit ran before authenticate');
  const decision = await store.takeRateLimit(credentialOf(principal), route.id, rule);
  const { name, policy } = partsOf(route, rule);
  if (!decision.allowed) {
    const wait = decision.retryAfterSeconds;
    throw new GatewayError('rate_limited', `This credential may send ${rule.requests} requests per ${rule.perSeconds} seconds to this route; retry in ${wait} seconds.`, {
      headers: { 'retry-after': String(wait), 'ratelimit-policy': policy, ratelimit: `${name};r=0;t=${wait}` },
    });
  }
  const fields: RateLimitFields = { 'ratelimit-policy': policy, ratelimit: `${name};r=${decision.remaining};t=${decision.resetSeconds}` };
  context.rateLimitFields = fields;
  // On the reply now, so that the gateway's own answers after this stage (401, 413, 502...) carry them too.
  reply.headers(fields);
}
