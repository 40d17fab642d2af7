// A DPoP proof (RFC 9449 section 4): a JWT the client signs with its key for one request, carrying
// that public key in its header. Checked in constant work and without the store: bounded before
// parsing, the header's typ, alg and public jwk, the signature, then htm, htu, iat and ath. What
// remains, the jti's single use across instances, is the caller's one store write, made only once
// the request is otherwise allowed. A refusal is a DpopProofRefused whose reason the client may read
// (it says what is wrong with its own proof, nothing about the server's state).
import { hash } from 'node:crypto';
import { boundedCache } from '../cache/bounded-cache.js';
import { PublicKeyError } from '../service-accounts/public-key-errors.js';
import { publicJwk, jwkThumbprint } from './client-jwks.js';
import { COMPACT_JWS, jsonSegment } from './jws-parts.js';
import { jwsVerifies } from './jws-signature.js';

/** An RSA-8192 key in the header and its signature (about 2,800 characters) fit, with room for the claims. */
export const MAX_DPOP_PROOF_LENGTH = 4096;
/** How far in the future iat may be, for clocks that differ. */
export const DPOP_CLOCK_SKEW_SECONDS = 5;
const MAX_JTI_LENGTH = 256;
/** Distinct proof keys whose checks are remembered (each entry a few hundred bytes). */
const MAX_CHECKED_KEYS = 10_000;

export class DpopProofRefused extends Error {}

export interface DpopRules {
  /** The accepted header alg labels. */
  algorithms: readonly string[];
  /** The request the proof must be for: its method as sent and its URL (query and fragment are ignored). */
  method: string;
  url: string;
  /** The access token presented with the proof, whose hash ath must be; undefined at the token endpoint. */
  accessToken: string | undefined;
  nowSeconds: number;
  /** How old (by its iat) a proof may be. */
  maxAgeSeconds: number;
}

export interface CheckedDpopProof {
  /** RFC 7638 thumbprint of the proof's key: what a bound token's cnf.jkt holds. */
  jkt: string;
  jti: string;
  iat: number;
  /** The server-provided nonce the proof carries, if any (checked by DpopProofs when nonces are on). */
  nonce: string | undefined;
}

function jsonObject(segment: string, what: string): Record<string, unknown> {
  return jsonSegment(segment, (problem) => new DpopProofRefused(`the proof's ${what} ${problem}`));
}

/**
 * A URL as RFC 9449 4.3 compares htu: without query and fragment, after the WHATWG parser's
 * normalisation (scheme and host lower-cased, default port dropped, dot segments removed).
 * Undefined for anything that is not an absolute http(s) URL.
 */
export function htuOf(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (url.username !== '' || url.password !== '') return undefined;
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/** base64url(SHA-256(token)): the ath a proof sent with this access token carries. */
export function accessTokenHash(token: string): string {
  return hash('sha256', Buffer.from(token, 'ascii'), 'base64url');
}

function checkHeader(header: Record<string, unknown>, rules: DpopRules): { alg: string; jwk: Record<string, string>; jkt: string } {
  if (header.typ !== 'dpop+jwt') throw new DpopProofRefused('the proof\'s typ is not "dpop+jwt"');
  const alg = header.alg;
  if (typeof alg !== 'string' || !rules.algorithms.includes(alg)) throw new DpopProofRefused(`the proof's alg is not one of ${rules.algorithms.join(', ')}`);
  if (header.crit !== undefined || header.b64 !== undefined)
    throw new DpopProofRefused('the proof has a header parameter this server does not process (crit or b64)');
  return { alg, ...proofKey(header.jwk) };
}

/**
 * Proof keys that passed the client-key rules, by their JSON as sent: a client sends the same key
 * with every proof, and the Ed25519 curve checks cost more than the rest of the proof together.
 * Refused keys are not kept.
 */
const CHECKED_KEYS = boundedCache<string, { jwk: Record<string, string>; jkt: string }>(MAX_CHECKED_KEYS);

function proofKey(value: unknown): { jwk: Record<string, string>; jkt: string } {
  const text = JSON.stringify(value) as string | undefined;
  const known = text === undefined ? undefined : CHECKED_KEYS.get(text);
  if (known) return known;
  let jwk: Record<string, string>;
  try {
    jwk = publicJwk(value);
  } catch (error) {
    if (error instanceof PublicKeyError) throw new DpopProofRefused(`the proof's jwk ${error.message}`);
    throw error;
  }
  const checked = { jwk, jkt: jwkThumbprint(jwk) };
  CHECKED_KEYS.set(text!, checked);
  return checked;
}

function checkClaims(claims: Record<string, unknown>, rules: DpopRules): { jti: string; iat: number; nonce: string | undefined } {
  const { jti, htm, htu, iat, ath, nonce } = claims;
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > MAX_JTI_LENGTH)
    throw new DpopProofRefused(`the proof's jti is missing or longer than ${MAX_JTI_LENGTH}`);
  if (htm !== rules.method) throw new DpopProofRefused("the proof's htm is not this request's method");
  const expected = htuOf(rules.url);
  if (typeof htu !== 'string' || expected === undefined || htuOf(htu) !== expected) throw new DpopProofRefused("the proof's htu is not this request's URL");
  if (typeof iat !== 'number' || !Number.isFinite(iat)) throw new DpopProofRefused("the proof's iat is missing");
  if (iat > rules.nowSeconds + DPOP_CLOCK_SKEW_SECONDS) throw new DpopProofRefused("the proof's iat is in the future");
  if (iat < rules.nowSeconds - rules.maxAgeSeconds) throw new DpopProofRefused(`the proof is older than ${rules.maxAgeSeconds} s`);
  if (rules.accessToken !== undefined) {
    if (typeof ath !== 'string' || ath !== accessTokenHash(rules.accessToken))
      throw new DpopProofRefused("the proof's ath is not the hash of this access token");
  }
  if (nonce !== undefined && (typeof nonce !== 'string' || nonce.length > MAX_JTI_LENGTH))
    throw new DpopProofRefused(`the proof's nonce is not a string of at most ${MAX_JTI_LENGTH} characters`);
  return { jti, iat, nonce };
}

/** The proof checked against the request it came with; throws DpopProofRefused. */
export function checkDpopProof(proof: string, rules: DpopRules): CheckedDpopProof {
  if (proof.length > MAX_DPOP_PROOF_LENGTH) throw new DpopProofRefused(`the proof is longer than ${MAX_DPOP_PROOF_LENGTH} characters`);
  const parts = COMPACT_JWS.exec(proof);
  if (!parts) throw new DpopProofRefused('the proof is not a compact JWS');
  const { alg, jwk, jkt } = checkHeader(jsonObject(parts[1]!, 'header'), rules);
  // The claims first: they cost less than the signature.
  const claims = checkClaims(jsonObject(parts[2]!, 'payload'), rules);
  if (!jwsVerifies(alg, Buffer.from(`${parts[1]}.${parts[2]}`, 'ascii'), Buffer.from(parts[3]!, 'base64url'), jwk)) {
    throw new DpopProofRefused("the proof's signature does not verify with its jwk");
  }
  return { jkt, ...claims };
}
