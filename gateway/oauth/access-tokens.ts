// RFC 9068 access tokens: issued with the active signing key, verified against an algorithm
// allow-list from config (never the token's own choice) with iss, aud, typ and exp enforced.
import { randomUUID } from 'node:crypto';
import { jwtVerify, errors as joseErrors, type JWTPayload, type JWTHeaderParameters } from 'jose';
import type { Settings } from '../config/settings.js';
import { StoreUnavailableError } from '../store/types.js';
import { CLOCK_TOLERANCE_SECONDS } from './clock-tolerance.js';
import { signCompactJws } from './compact-jws.js';
import type { SigningKeys } from './signing-keys.js';
import { VerifiedTokenCache } from './verified-token-cache.js';

export interface AccessTokenClaims extends JWTPayload {
  sub: string;
  client_id: string;
  scope: string;
  jti: string;
  exp: number;
  iat: number;
  account_id?: string;
  /** RFC 9449 6.1: the thumbprint of the key a DPoP-bound token is bound to. */
  cnf?: { jkt: string };
}

/** A token whose signature and claims verified, and the kid of the key that signed it. */
export interface VerifiedToken {
  claims: AccessTokenClaims;
  /** Asked about with the token's other state (bearerState): the key may have been retired since. */
  kid: string;
}

export interface IssuedToken {
  token: string;
  claims: AccessTokenClaims;
}

export class TokenVerificationError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'TokenVerificationError';
  }
}

/** Why a token of a retired signing key fails, whichever check finds it (the key set, or the store). */
export const SIGNING_KEY_RETIRED = 'the signing key was retired';

type TokenSettings = Pick<Settings, 'issuer' | 'audience' | 'tokenTtlSeconds' | 'jwtAllowedAlgorithms'>;

export class AccessTokens {
  private readonly verified = new VerifiedTokenCache<AccessTokenClaims>();

  constructor(
    private readonly settings: TokenSettings,
    private readonly keys: SigningKeys,
  ) {}

  get lifetimeSeconds(): number {
    return this.settings.tokenTtlSeconds;
  }

  /** `jkt`: the thumbprint of the DPoP key the token is bound to (cnf.jkt); undefined for a Bearer token. */
  async issue(client: { clientId: string; accountId: string | null }, scopes: readonly string[], jkt?: string): Promise<IssuedToken> {
    const key = this.keys.signingKey();
    const iat = Math.floor(Date.now() / 1000);
    const claims: AccessTokenClaims = {
      iss: this.settings.issuer,
      sub: client.clientId,
      aud: this.settings.audience,
      client_id: client.clientId,
      scope: scopes.join(' '),
      iat,
      exp: iat + this.settings.tokenTtlSeconds,
      jti: randomUUID(),
      ...(client.accountId ? { account_id: client.accountId } : {}),
      ...(jkt === undefined ? {} : { cnf: { jkt } }),
    };
    const token = signCompactJws({ alg: key.alg, kid: key.kid, typ: 'at+jwt' }, claims, key.signingKey);
    return { token, claims };
  }

  /**
   * Whether a verified token's key counts as retired, given the store's mark. An unreadable mark
   * (null: its one Cluster master is lost) clears only the active key, which cannot be retired
   * without a rotation first; any other key fails closed.
   */
  isRetired(kid: string, mark: boolean | null): boolean {
    if (mark !== null) return mark;
    if (kid === this.keys.signingKey().kid) return false;
    throw new StoreUnavailableError(new Error("the retirement mark of the token's signing key could not be read"));
  }

  /** Verifies signature, algorithm, typ, iss, aud and exp; throws TokenVerificationError with a reason. */
  async verify(token: string): Promise<VerifiedToken> {
    const cached = this.verified.get(token, (kid) => this.keys.knows(kid));
    if (cached) return cached;
    // One token, one spelling: jose decodes base64url leniently (padding, non-zero unused bits), so
    // other strings with the same bytes would verify and escape anything keyed by the exact text.
    if (!isCanonicalCompactJws(token)) throw new TokenVerificationError('malformed');
    try {
      const { payload, protectedHeader } = await jwtVerify(token, (header: JWTHeaderParameters) => this.keyFor(header), {
        algorithms: [...this.settings.jwtAllowedAlgorithms],
        issuer: this.settings.issuer,
        audience: this.settings.audience,
        typ: 'at+jwt',
        requiredClaims: ['sub', 'client_id', 'scope', 'jti', 'exp', 'iat'],
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
      });
      if (typeof payload.client_id !== 'string' || typeof payload.scope !== 'string' || typeof payload.jti !== 'string') {
        throw new TokenVerificationError('claims have the wrong types');
      }
      const cnf = payload.cnf as { jkt?: unknown } | undefined;
      if (cnf !== undefined && (typeof cnf !== 'object' || cnf === null || typeof cnf.jkt !== 'string'))
        throw new TokenVerificationError('cnf is not a key binding');
      // keyFor found a key by this kid: it is present.
      const kid = protectedHeader.kid!;
      this.verified.set(token, kid, payload as AccessTokenClaims);
      return { claims: payload as AccessTokenClaims, kid };
    } catch (error) {
      // A store that cannot be reached while looking up a key is a 503, not a bad token.
      if (error instanceof StoreUnavailableError) throw error;
      throw new TokenVerificationError(reasonOf(error));
    }
  }

  private async keyFor(header: JWTHeaderParameters) {
    const key = await this.keys.verificationKey(header.kid);
    if (!key && header.kid !== undefined && this.keys.wasRetired(header.kid)) throw new TokenVerificationError(SIGNING_KEY_RETIRED);
    // The key's own algorithm must be the header's: a key is never used with another algorithm.
    if (!key || key.alg !== header.alg) throw new TokenVerificationError('unknown signing key');
    return key.publicKey;
  }
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;

function isCanonicalCompactJws(token: string): boolean {
  const parts = token.split('.');
  return parts.length === 3 && parts.every((part) => BASE64URL.test(part) && Buffer.from(part, 'base64url').toString('base64url') === part);
}

function reasonOf(error: unknown): string {
  if (error instanceof TokenVerificationError) return error.reason;
  if (error instanceof joseErrors.JWTExpired) return 'expired';
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return 'algorithm not allowed';
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return 'bad signature';
  if (error instanceof joseErrors.JWTClaimValidationFailed) return `claim ${error.claim} ${error.reason === 'check_failed' ? 'is wrong' : 'is missing'}`;
  if (error instanceof joseErrors.JOSEError) return 'malformed';
  return 'malformed';
}
