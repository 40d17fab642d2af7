// A private_key_jwt client assertion (RFC 7523 section 2.2 and 3): the compact JWS parsed and its
// claims checked, all without the store, so that nothing is written for an assertion that fails here.
// Bounded before parsing (MAX_ASSERTION_LENGTH). Every refusal is an AssertionRefused whose reason is
// for the log only: the client is told no more than RFC 6749 section 5.2's invalid_client.
import type { ClientAssertionAlgorithm } from '../config/settings.js';
import { isUuid } from '../uuid.js';
import { COMPACT_JWS, jsonSegment } from './jws-parts.js';

export const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/** An RSA-8192 signature (1,366 characters) and a generous header and claims fit in this. */
export const MAX_ASSERTION_LENGTH = 4096;
/** The longest lifetime (exp - iat, or exp - now) an assertion may have: 5 minutes. */
export const MAX_ASSERTION_LIFETIME_SECONDS = 300;
/** How far in the future iat and nbf (and how far in the past exp) may be, for clocks that differ. */
export const ASSERTION_CLOCK_SKEW_SECONDS = 10;
const MAX_JTI_LENGTH = 256;
const MAX_AUDIENCES = 10;

export class AssertionRefused extends Error {}

/** The JWS algorithm labels accepted for each configured algorithm: EdDSA also as RFC 9864's Ed25519. */
export function headerAlgorithms(configured: readonly ClientAssertionAlgorithm[]): string[] {
  return configured.flatMap((alg) => (alg === 'EdDSA' ? ['EdDSA', 'Ed25519'] : [alg]));
}

export interface AssertionClaims {
  clientId: string;
  jti: string;
  exp: number;
}

export interface ParsedAssertion {
  alg: string;
  kid: string | undefined;
  claims: AssertionClaims;
  /** The JWS signing input (header.payload) and the decoded signature. */
  signingInput: Buffer;
  signature: Buffer;
}

export interface AssertionRules {
  /** The accepted header alg labels (headerAlgorithms). */
  algorithms: readonly string[];
  /** The audiences accepted: the issuer identifier and the token endpoint URL (the issuer alone under FAPI 2.0). */
  audiences: readonly string[];
  /** FAPI 2.0: aud must be a string, not an array. */
  audienceAsString?: boolean;
  nowSeconds: number;
}

function jsonObject(segment: string, what: string): Record<string, unknown> {
  return jsonSegment(segment, (problem) => new AssertionRefused(`the ${what} ${problem}`));
}

function numericDate(claims: Record<string, unknown>, name: string): number | undefined {
  const value = claims[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new AssertionRefused(`${name} is not a NumericDate`);
  return value;
}

function checkHeader(header: Record<string, unknown>, rules: AssertionRules): { alg: string; kid: string | undefined } {
  const { alg, kid } = header;
  if (typeof alg !== 'string' || !rules.algorithms.includes(alg)) throw new AssertionRefused('the alg is not allowed');
  // No extension this verifier understands: a critical one must be refused (RFC 7515 4.1.11).
  if (header.crit !== undefined) throw new AssertionRefused('the header has crit');
  if (header.b64 !== undefined) throw new AssertionRefused('the header has b64');
  if (kid !== undefined && (typeof kid !== 'string' || kid.length === 0 || kid.length > 128)) throw new AssertionRefused('the kid is not a short string');
  return { alg, kid };
}

function checkAudience(aud: unknown, audiences: readonly string[], asString: boolean): void {
  if (asString && typeof aud !== 'string') throw new AssertionRefused('the aud is not a string');
  const values = typeof aud === 'string' ? [aud] : Array.isArray(aud) && aud.length <= MAX_AUDIENCES ? aud : undefined;
  if (values === undefined || !values.some((value) => typeof value === 'string' && audiences.includes(value)))
    throw new AssertionRefused('the aud names neither the issuer nor the token endpoint');
}

function checkTimes(claims: Record<string, unknown>, nowSeconds: number): number {
  const exp = numericDate(claims, 'exp');
  const iat = numericDate(claims, 'iat');
  const nbf = numericDate(claims, 'nbf');
  if (exp === undefined) throw new AssertionRefused('exp is missing');
  if (exp <= nowSeconds - ASSERTION_CLOCK_SKEW_SECONDS) throw new AssertionRefused('the assertion has expired');
  if (exp - nowSeconds > MAX_ASSERTION_LIFETIME_SECONDS + ASSERTION_CLOCK_SKEW_SECONDS) throw new AssertionRefused('exp is too far in the future');
  for (const [name, value] of [
    ['iat', iat],
    ['nbf', nbf],
  ] as const) {
    if (value !== undefined && value > nowSeconds + ASSERTION_CLOCK_SKEW_SECONDS) throw new AssertionRefused(`${name} is in the future`);
  }
  if (iat !== undefined && exp - iat > MAX_ASSERTION_LIFETIME_SECONDS) throw new AssertionRefused('the lifetime (exp - iat) is too long');
  return exp;
}

/** The claims RFC 7523 3 requires, checked; iss = sub = a client id (a UUID). */
function checkClaims(claims: Record<string, unknown>, rules: AssertionRules): AssertionClaims {
  const { iss, sub, jti } = claims;
  if (typeof iss !== 'string' || !isUuid(iss)) throw new AssertionRefused('iss is not a client id');
  if (sub !== iss) throw new AssertionRefused('sub differs from iss');
  checkAudience(claims.aud, rules.audiences, rules.audienceAsString === true);
  const exp = checkTimes(claims, rules.nowSeconds);
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > MAX_JTI_LENGTH) throw new AssertionRefused('jti is missing or too long');
  return { clientId: iss, jti, exp };
}

/**
 * The client an assertion refused by parseClientAssertion claims to be (its iss, unverified), for the
 * failure throttle to count the failure against, as it counts a wrong secret against its client id.
 */
export function claimedClientId(assertion: string): string | undefined {
  if (assertion.length > MAX_ASSERTION_LENGTH) return undefined;
  const parts = COMPACT_JWS.exec(assertion);
  if (!parts) return undefined;
  try {
    const iss = jsonObject(parts[2]!, 'payload').iss;
    return typeof iss === 'string' && isUuid(iss) ? iss : undefined;
  } catch {
    return undefined;
  }
}

/** The assertion parsed and every check that needs no key and no store passed. */
export function parseClientAssertion(assertion: string, rules: AssertionRules): ParsedAssertion {
  if (assertion.length > MAX_ASSERTION_LENGTH) throw new AssertionRefused('the assertion is too long');
  const parts = COMPACT_JWS.exec(assertion);
  if (!parts) throw new AssertionRefused('the assertion is not a compact JWS');
  const { alg, kid } = checkHeader(jsonObject(parts[1]!, 'header'), rules);
  const claims = checkClaims(jsonObject(parts[2]!, 'payload'), rules);
  return {
    alg,
    kid,
    claims,
    signingInput: Buffer.from(`${parts[1]}.${parts[2]}`, 'ascii'),
    signature: Buffer.from(parts[3]!, 'base64url'),
  };
}
