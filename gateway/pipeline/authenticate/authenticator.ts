import type { FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../../errors.js';
import type { AuthScheme } from '../../policy/policy-loader.js';
import type { Principal, RequestContext } from '../context.js';

/** One authentication scheme: proves who sent the request or throws a GatewayError (401/503). */
export interface Authenticator {
  authenticate(request: FastifyRequest, context: RequestContext): Promise<Principal>;
  /**
   * Runs once the request is authorized, for work no unauthorized request may cause: store writes
   * (a nonce consumed) and reading the body. Throws CredentialChangedError when the credential
   * authenticate used is no longer the stored one (nothing was written).
   */
  admit?(request: FastifyRequest, reply: FastifyReply, context: RequestContext): Promise<void>;
}

export type Authenticators = Record<AuthScheme, Authenticator>;

/**
 * The credential changed in the store after authenticate used this instance's copy of it: the
 * pipeline checks the request once more, from the store. If it escapes (it changed again in
 * between), the client gets 503 with Retry-After and may send the same request again.
 */
export class CredentialChangedError extends GatewayError {
  constructor() {
    super('server_busy', 'The credential changed while this request was checked; send it again.', { headers: { 'retry-after': '1' } });
  }
}
