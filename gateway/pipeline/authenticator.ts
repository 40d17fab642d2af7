import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthScheme } from '../policy/policy-loader.js';
import type { Principal, RequestContext } from './context.js';

/** One authentication scheme: proves who sent the request or throws a GatewayError (401/503). */
export interface Authenticator {
  authenticate(request: FastifyRequest, context: RequestContext): Promise<Principal>;
  /**
   * Runs once the request is authorized, for work no unauthorized request may cause: store writes
   * (a nonce consumed) and reading the body.
   */
  admit?(request: FastifyRequest, reply: FastifyReply, context: RequestContext): Promise<void>;
}

export type Authenticators = Record<AuthScheme, Authenticator>;
