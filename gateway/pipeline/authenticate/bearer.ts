// Token authentication for public routes: a locally verified JWT plus one store round trip that
// answers "is the client still there", "was this token revoked" and "was the key that signed it
// retired". A Bearer token (RFC 6750) is enough by itself; a DPoP-bound one (RFC 9449, cnf.jkt) only
// as Authorization: DPoP with a proof of its key for this request, whose jti is used up in stage 5
// (admit), once the request is authorized and within its limit. A bound token sent as Bearer is
// refused: a copy of it is worth nothing without the key. On a message_signing route the request
// must also carry the client's FAPI signature (fapi-signature.ts).
import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError } from '../../errors.js';
import type { AccessTokens } from '../../oauth/access-tokens.js';
import type { DpopProofs } from '../../oauth/dpop.js';
import { SIGNING_KEY_RETIRED, TokenVerificationError, type VerifiedToken } from '../../oauth/access-tokens.js';
import { StoreUnavailableError, type CredentialStore } from '../../store/types.js';
import type { IdentifiedRequest } from '../identify.js';
import type { BodySource } from '../body-source.js';
import type { ClientPrincipal } from '../principal.js';
import type { Authentication, Authenticator } from './authenticator.js';
import type { FapiRequestSignatures } from './fapi-signature.js';

const REALM = 'Bearer realm="gateway"';

type Scheme = 'Bearer' | 'DPoP';

/** The scheme and token of "Authorization: Bearer <token>" or "Authorization: DPoP <token>", or undefined. */
function credentialsOf(headers: IncomingHttpHeaders): { scheme: Scheme; token: string } | undefined {
  const match = /^(Bearer|DPoP) +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(headers.authorization ?? '');
  if (!match) return undefined;
  return { scheme: match[1]!.toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer', token: match[2]! };
}

export class BearerAuthenticator implements Authenticator {
  constructor(
    private readonly tokens: AccessTokens,
    private readonly store: CredentialStore,
    private readonly dpop: DpopProofs,
    private readonly fapi: FapiRequestSignatures,
  ) {}

  /** A refusal of a token, challenged in the scheme the client used (the metadata names DPoP's algorithms). */
  private invalidToken(scheme: Scheme, description: string): GatewayError {
    const challenge =
      scheme === 'DPoP' ? this.dpop.challenge('invalid_token', description) : `${REALM}, error="invalid_token", error_description="${description}"`;
    return new GatewayError('invalid_token', `The access token is not valid: ${description}.`, { headers: { 'www-authenticate': challenge } });
  }

  async authenticate(request: IdentifiedRequest): Promise<Authentication> {
    const headers = request.original.headers;
    if (!headers.authorization) {
      throw new GatewayError('invalid_token', 'An access token is required: send Authorization: Bearer <token>.', { headers: { 'www-authenticate': REALM } });
    }
    const credentials = credentialsOf(headers);
    if (!credentials) throw this.invalidToken('Bearer', 'the Authorization header is not a Bearer token');
    const { scheme, token } = credentials;
    // Before the token is verified: a proof that cannot be right costs no signature check of the token.
    const proof = scheme === 'DPoP' ? this.dpop.proofOf(headers, false) : undefined;
    if (scheme === 'DPoP' && proof === undefined) throw this.dpop.refusal('Authorization: DPoP needs a DPoP header with a proof', false);
    let verified: VerifiedToken;
    try {
      verified = await this.tokens.verify(token);
    } catch (error) {
      // The store could not be asked about the signing key: fail closed with 503, not "bad token".
      if (error instanceof StoreUnavailableError) throw error;
      throw this.invalidToken(scheme, error instanceof TokenVerificationError ? error.reason : 'malformed');
    }
    const { claims, kid } = verified;
    const jkt = claims.cnf?.jkt;
    if (scheme === 'Bearer' && jkt !== undefined)
      throw this.invalidToken('Bearer', 'the token is DPoP-bound: send it as Authorization: DPoP with a DPoP proof');
    if (scheme === 'DPoP' && jkt === undefined) throw this.invalidToken('DPoP', 'the token is not DPoP-bound: send it as Authorization: Bearer');
    const original = request.original;
    const checked =
      proof === undefined
        ? undefined
        : this.dpop.check(proof, { method: original.method, url: `${original.protocol}://${original.authority}${request.target.path}` }, token, false);
    if (checked !== undefined && checked.jkt !== jkt) throw this.dpop.refusal("the proof's key is not the one the token is bound to", false);
    const state = await this.store.bearerState(claims.client_id, claims.jti, kid);
    if (!state.client) throw this.invalidToken(scheme, 'the client was deleted');
    if (state.revoked) throw this.invalidToken(scheme, 'the token was revoked');
    if (this.tokens.isRetired(kid, state.signingKeyRetired)) throw this.invalidToken(scheme, SIGNING_KEY_RETIRED);
    const held = state.client.scopes;
    const principal: ClientPrincipal = {
      kind: 'client',
      clientId: claims.client_id,
      accountId: state.client.accountId,
      // A scope taken from the client since the token was issued no longer counts (PATCH /admin/v1/clients).
      scopes: claims.scope.split(' ').filter((scope) => scope !== '' && held.includes(scope)),
      ...(jkt === undefined ? {} : { jkt }),
    };
    // A message_signing route: the client's own signature over this request, by one of its keys.
    const signed = request.route.messageSigning === 'fapi-2' ? this.fapi.verify(request, state.client) : undefined;
    if (checked === undefined && signed === undefined) return { principal };
    // Stage 5, once the request is authorized and within its limit: the proof's jti used up, then
    // the signature's nonce and body.
    const admit = async (body: BodySource): Promise<Buffer | undefined> => {
      if (checked !== undefined) await this.dpop.consume(claims.client_id, checked, false);
      return signed === undefined ? undefined : this.fapi.admit(claims.client_id, request, signed, body);
    };
    return { principal, admission: { admit }, answered: signed?.answered };
  }
}
