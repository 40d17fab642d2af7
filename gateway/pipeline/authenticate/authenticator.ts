// Stage 2's contract: one authentication scheme per policy `auth` value.
import type { FastifyBaseLogger } from 'fastify';
import { GatewayError } from '../../errors.js';
import type { AuthScheme } from '../../policy/policy-loader.js';
import type { BodySource } from '../body-source.js';
import type { IdentifiedRequest } from '../identify.js';
import type { AnsweredRequest } from '../../signing/response-signature.js';
import type { Principal } from '../principal.js';

/**
 * Work no unauthorized request may cause, left by a scheme for stage 5 (admit): store writes (a
 * nonce consumed) and reading the body.
 */
export interface Admission {
  /**
   * Resolves to the body bytes it verified, which are forwarded instead of the stream (undefined:
   * none were read). Throws the refusal, or CredentialChangedError when the credential stage 2 used
   * is no longer the stored one (nothing was written).
   */
  admit(body: BodySource): Promise<Buffer | undefined>;
}

/** Who sent the request, and what it still has to pass once it is authorized and within its limit. */
export interface Authentication {
  readonly principal: Principal;
  readonly admission?: Admission;
  /** A FAPI-signed request (message_signing routes): what the gateway's signature on the response covers of it. */
  readonly answered?: AnsweredRequest;
}

/** One authentication scheme: proves who sent the request or throws a GatewayError (401/503). */
export interface Authenticator {
  /** `log` is the exchange's, for the scheme's own account of a refusal. */
  authenticate(request: IdentifiedRequest, log: FastifyBaseLogger): Promise<Authentication>;
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
