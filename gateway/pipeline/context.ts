// What the pipeline learns about a request as it passes each stage.
import type { Address } from '../net/cidr.js';
import type { PolicyRoute } from '../policy/policy-loader.js';
import type { SafeTarget } from '../policy/path-safety.js';
import type { ClaimedDigests } from '../signing/content-digest.js';
import type { ServiceAccountRecord } from '../store/types.js';
import type { OriginalRequest } from './original-request.js';

export interface ClientPrincipal {
  readonly kind: 'client';
  readonly clientId: string;
  readonly accountId: string | null;
  readonly scopes: readonly string[];
}

export interface ServiceAccountPrincipal {
  readonly kind: 'service-account';
  readonly account: ServiceAccountRecord;
}

export type Principal = ClientPrincipal | ServiceAccountPrincipal;

/** What the signature stage verified and its admit step still needs. */
export interface VerifiedSignedRequest {
  readonly accessId: string;
  readonly nonce: string;
  /** The signature's created (epoch seconds): a store that may have lost nonces in a failover refuses older ones. */
  readonly created: number;
  readonly claimedDigests: ClaimedDigests | undefined;
  /** The version of the account record it was verified with; the nonce is consumed only while the store holds that one. */
  readonly version: string;
}

export interface RequestContext {
  /** The request decided on: received by the proxy, or described by an edge proxy. */
  original: OriginalRequest;
  target: SafeTarget;
  route: PolicyRoute;
  clientAddress: Address | undefined;
  principal?: Principal;
  /** Set by the signature stage: what its admit step still has to do once the request is authorized. */
  signed?: VerifiedSignedRequest;
  /** Set by the signature stage: the exact body bytes that were verified and are forwarded. */
  body?: Buffer;
  /** Set by the limit stage on a rate-limited route: the RateLimit response fields of this request. */
  rateLimitFields?: Readonly<Record<'ratelimit-policy' | 'ratelimit', string>>;
  /** performance.now() when the request passed every check and was handed to the proxy. */
  forwardedAt?: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    gateway?: RequestContext;
  }
}
