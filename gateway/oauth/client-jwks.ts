// The public keys a private_key_jwt client registers (RFC 7591 `jwks`): Ed25519 (OKP), P-256 (EC)
// or RSA of 2048 to 8192 bits, each stored with only its public members and a kid. Refused with a
// PublicKeyError naming the key and the problem (the admin API's 400): private members, other key
// types and curves, non-canonical encodings, small-order Ed25519 keys (the service accounts' rules),
// EC points off the curve, short RSA moduli.
// A key without a kid gets its RFC 7638 thumbprint as kid: stable, unique to the key, and computable
// by the client from the public key alone, so a client that names no kid can still name the key
// later (in its assertion header, or to remove it); a kid given is kept, as clients sign with it.
import { createPublicKey, type KeyObject } from 'node:crypto';
import { jwkThumbprint } from '../signing/jwk-thumbprint.js';
import { parseJwkPublicKey, isObject } from '../service-accounts/jwk-public-key.js';
import { PrivateKeyGivenError, PublicKeyError } from '../service-accounts/public-key-errors.js';
import type { ClientKey } from '../store/types.js';

/** Two keys at once: the current one and its replacement during a rotation. */
export const MAX_CLIENT_KEYS = 2;
/** A kid is shown in URLs (DELETE .../keys/{kid}) and logs: plain characters, bounded. */
const KID = /^[A-Za-z0-9._~-]{1,128}$/;
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const MIN_RSA_BITS = 2048;
/** Verifying with a larger modulus costs more than any client needs to make us spend. */
const MAX_RSA_BITS = 8192;
const P256_COORDINATE_BYTES = 32;
const MAX_RSA_EXPONENT_BYTES = 4;

type Json = Record<string, unknown>;

/** The algorithm family a key verifies: what the assertion header's alg must match. */
export type ClientKeyType = 'Ed25519' | 'P-256' | 'RSA';

function canonicalBase64url(value: unknown, name: string, bytes?: number): string {
  if (typeof value !== 'string' || value === '' || !BASE64URL.test(value)) throw new PublicKeyError(`has no "${name}" in unpadded base64url`);
  const raw = Buffer.from(value, 'base64url');
  if (raw.toString('base64url') !== value) throw new PublicKeyError(`has a "${name}" that is not canonical base64url`);
  if (bytes !== undefined && raw.length !== bytes) throw new PublicKeyError(`has a "${name}" of ${raw.length} bytes; expected ${bytes}`);
  return value;
}

function checkUsage(jwk: Json, algorithms: readonly string[]): void {
  const alg = jwk.alg;
  if (alg !== undefined && !algorithms.includes(alg as string))
    throw new PublicKeyError(`has an alg that does not fit its key type; expected ${algorithms.join(' or ')}, or none`);
  if (jwk.use !== undefined && jwk.use !== 'sig') throw new PublicKeyError('has a use other than "sig"');
  const ops = jwk.key_ops;
  if (ops !== undefined && (!Array.isArray(ops) || ops.some((op) => op !== 'verify'))) throw new PublicKeyError('has key_ops other than ["verify"]');
}

function refusePrivate(jwk: Json): void {
  const found = PRIVATE_MEMBERS.find((name) => Object.hasOwn(jwk, name));
  if (found === undefined) return;
  const what = found === 'k' ? 'a secret (symmetric) JWK' : `a private JWK (it has "${found}")`;
  throw new PrivateKeyGivenError(`is ${what}, not a public key; give the public JWK and keep the private key secret`);
}

/** The public members, in RFC 7638's order for its thumbprint: what is stored and shown. */
function publicMembers(jwk: Json): { type: ClientKeyType; members: Record<string, string> } {
  const kty = jwk.kty;
  if (kty === 'OKP') {
    checkUsage(jwk, ['EdDSA', 'Ed25519']);
    const { raw } = parseJwkPublicKey({ kty: 'OKP', crv: jwk.crv, x: jwk.x });
    return { type: 'Ed25519', members: { crv: 'Ed25519', kty: 'OKP', x: raw.toString('base64url') } };
  }
  if (kty === 'EC') {
    if (jwk.crv !== 'P-256') throw new PublicKeyError('is an EC JWK whose crv is not "P-256"; only P-256 is accepted');
    checkUsage(jwk, ['ES256']);
    const members = {
      crv: 'P-256',
      kty: 'EC',
      x: canonicalBase64url(jwk.x, 'x', P256_COORDINATE_BYTES),
      y: canonicalBase64url(jwk.y, 'y', P256_COORDINATE_BYTES),
    };
    keyObjectOf(members, 'is not a point on P-256');
    return { type: 'P-256', members };
  }
  if (kty === 'RSA') {
    checkUsage(jwk, ['PS256']);
    const members = { e: canonicalBase64url(jwk.e, 'e'), kty: 'RSA', n: canonicalBase64url(jwk.n, 'n') };
    if (Buffer.from(members.n, 'base64url')[0] === 0) throw new PublicKeyError('has an "n" with a leading zero byte');
    // Real keys use 65537; a long exponent only makes each verification cost more.
    if (Buffer.from(members.e, 'base64url').length > MAX_RSA_EXPONENT_BYTES) throw new PublicKeyError(`has an "e" longer than ${MAX_RSA_EXPONENT_BYTES} bytes`);
    const bits = keyObjectOf(members, 'is not a usable RSA public key').asymmetricKeyDetails?.modulusLength ?? 0;
    if (bits < MIN_RSA_BITS || bits > MAX_RSA_BITS)
      throw new PublicKeyError(`is an RSA key of ${bits} bits; from ${MIN_RSA_BITS} to ${MAX_RSA_BITS} are accepted`);
    return { type: 'RSA', members };
  }
  throw new PublicKeyError('has a kty other than "OKP" (Ed25519), "EC" (P-256) or "RSA"');
}

/** The verification key of stored public members. */
export function keyObjectOf(members: Record<string, string>, problem = 'is not a usable public key'): KeyObject {
  try {
    return createPublicKey({ key: members, format: 'jwk' });
  } catch {
    throw new PublicKeyError(problem);
  }
}

/** The type of a stored key (its kty and crv). */
export function clientKeyType(jwk: Record<string, string>): ClientKeyType {
  return jwk.kty === 'OKP' ? 'Ed25519' : jwk.kty === 'EC' ? 'P-256' : 'RSA';
}

export { jwkThumbprint } from '../signing/jwk-thumbprint.js';

/** A public JWK given by a client (a DPoP proof's header): checked by the same rules, its public members. */
export function publicJwk(value: unknown): Record<string, string> {
  if (!isObject(value)) throw new PublicKeyError('is not a JSON object (a JWK)');
  refusePrivate(value);
  return publicMembers(value).members;
}

/** One key of the input, checked: its stored form (the message of a PublicKeyError says what is wrong). */
export function clientKeyFromJwk(value: unknown, addedAt: string): ClientKey {
  if (!isObject(value)) throw new PublicKeyError('is not a JSON object (a JWK)');
  refusePrivate(value);
  const { members } = publicMembers(value);
  const kid = value.kid === undefined ? jwkThumbprint(members) : value.kid;
  if (typeof kid !== 'string' || !KID.test(kid)) throw new PublicKeyError('has a kid that is not 1 to 128 of A-Z a-z 0-9 . _ ~ -');
  return { kid, jwk: { ...members, kid }, addedAt };
}

/** The keys of a `jwks` input ({"keys": [...]}): one or two, with distinct kids and distinct keys. */
export function clientKeysFromJwks(value: unknown, addedAt: string): ClientKey[] {
  if (!isObject(value) || !Array.isArray(value.keys)) throw new PublicKeyError('must be a JWK Set: {"keys": [...]}');
  // Refuse private members anywhere before saying anything else about the set.
  for (const key of value.keys) if (isObject(key)) refusePrivate(key);
  if (value.keys.length === 0 || value.keys.length > MAX_CLIENT_KEYS)
    throw new PublicKeyError(`must hold 1 or ${MAX_CLIENT_KEYS} keys (two during a rotation), not ${value.keys.length}`);
  const keys = value.keys.map((key: unknown, i: number) => {
    try {
      return clientKeyFromJwk(key, addedAt);
    } catch (error) {
      if (error instanceof PrivateKeyGivenError) throw error;
      if (error instanceof PublicKeyError) throw new PublicKeyError(`key ${i} ${error.message}`);
      throw error;
    }
  });
  checkDistinct(keys);
  return keys;
}

/** Two keys with one kid (or the same key twice) would make the kid ambiguous. */
export function checkDistinct(keys: readonly ClientKey[]): void {
  if (new Set(keys.map((k) => k.kid)).size !== keys.length) throw new PublicKeyError('holds two keys with the same kid');
  const thumbprints = keys.map((k) => jwkThumbprint(withoutKid(k.jwk)));
  if (new Set(thumbprints).size !== keys.length) throw new PublicKeyError('holds the same key twice');
}

export function withoutKid(jwk: Record<string, string>): Record<string, string> {
  const { kid: _kid, ...members } = jwk;
  return members;
}
