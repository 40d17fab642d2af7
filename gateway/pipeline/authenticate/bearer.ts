// Bearer authentication for public routes (RFC 6750): a locally verified JWT plus one store round
// trip that answers "is the client still there", "was this token revoked" and "was the key that
// signed it retired".
import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError } from '../../errors.js';
import type { AccessTokens } from '../../oauth/access-tokens.js';
import { SIGNING_KEY_RETIRED, TokenVerificationError, type VerifiedToken } from '../../oauth/access-tokens.js';
import { StoreUnavailableError, type CredentialStore } from '../../store/types.js';
import type { IdentifiedRequest } from '../identify.js';
import type { ClientPrincipal } from '../principal.js';
import type { Authentication, Authenticator } from './authenticator.js';

const REALM = 'Bearer realm="gateway"';

function invalidToken(description: string): GatewayError {
  return new GatewayError('invalid_token', `The access token is not valid: ${description}.`, {
    headers: { 'www-authenticate': `${REALM}, error="invalid_token", error_description="${description}"` },
  });
}

/** The token from "Authorization: Bearer <token>", or a 401 that says what is wrong. */
export function bearerTokenOf(headers: IncomingHttpHeaders): string {
  const header = headers.authorization;
  if (!header) {
    throw new GatewayError('invalid_token', 'An access token is required: send Authorization: Bearer <token>.', { headers: { 'www-authenticate': REALM } });
  }
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  if (!match) throw invalidToken('the Authorization header is not a Bearer token');
  return match[1]!;
}

export class BearerAuthenticator implements Authenticator {
  constructor(
    private readonly tokens: AccessTokens,
    private readonly store: CredentialStore,
  ) {}

  async authenticate(request: IdentifiedRequest): Promise<Authentication> {
    const token = bearerTokenOf(request.original.headers);
    let verified: VerifiedToken;
    try {
      verified = await this.tokens.verify(token);
    } catch (error) {
      // The store could not be asked about the signing key: fail closed with 503, not "bad token".
      if (error instanceof StoreUnavailableError) throw error;
      throw invalidToken(error instanceof TokenVerificationError ? error.reason : 'malformed');
    }
    const { claims, kid } = verified;
    const state = await this.store.bearerState(claims.client_id, claims.jti, kid);
    if (!state.client) throw invalidToken('the client was deleted');
    if (state.revoked) throw invalidToken('the token was revoked');
    if (this.tokens.isRetired(kid, state.signingKeyRetired)) throw invalidToken(SIGNING_KEY_RETIRED);
    const principal: ClientPrincipal = {
      kind: 'client',
      clientId: claims.client_id,
      accountId: state.client.accountId,
      scopes: claims.scope.split(' ').filter(Boolean),
    };
    return { principal };
  }
}
