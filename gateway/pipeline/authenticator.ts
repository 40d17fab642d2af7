import type { FastifyRequest } from 'fastify';
import type { AuthScheme } from '../policy/policy-loader.js';
import type { Principal, RequestContext } from './context.js';

/** One authentication scheme: proves who sent the request or throws a GatewayError (401/503). */
export interface Authenticator {
  authenticate(request: FastifyRequest, context: RequestContext): Promise<Principal>;
}

export type Authenticators = Record<AuthScheme, Authenticator>;
