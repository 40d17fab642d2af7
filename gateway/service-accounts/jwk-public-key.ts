// The JWK form of a public key (RFC 7517, RFC 8037): {"kty":"OKP","crv":"Ed25519","x":"<base64url>"}.
// x must be the canonical unpadded base64url of 32 bytes; alg, use and key_ops, when present, must
// fit a signature-verification key; other members are ignored, as RFC 7517 section 4 requires. A
// JWK with private members is refused as the private key it is.
import { PrivateKeyGivenError, PublicKeyError } from './public-key-errors.js';
import { canonicalEd25519Key, type SshEd25519Key } from './ssh-public-key.js';

type Json = Record<string, unknown>;

/** Members that only a private (or secret) key has: d (OKP, EC, RSA), RSA's CRT values, oct's k. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
const ALGORITHMS = ['EdDSA', 'Ed25519'];
const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** kty and crv values short and plain enough to repeat in a message. */
const NAME = /^[A-Za-z0-9-]{1,20}$/;

export const JWK_SHAPE = '{"kty":"OKP","crv":"Ed25519","x":"<base64url>"}';

function member(jwk: Json, name: string): unknown {
  return Object.hasOwn(jwk, name) ? jwk[name] : undefined;
}

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function shown(value: unknown): string {
  if (value === undefined) return 'missing';
  return typeof value === 'string' && NAME.test(value) ? `"${value}"` : 'not a recognised value';
}

function refusePrivate(jwk: Json): void {
  const found = PRIVATE_MEMBERS.find((name) => Object.hasOwn(jwk, name));
  if (found === undefined) return;
  const what = found === 'k' ? 'a secret (symmetric) JWK' : `a private JWK (it has "${found}")`;
  throw new PrivateKeyGivenError(`is ${what}, not a public key; give the public JWK (without "d") and keep the private key secret`);
}

function checkUsage(jwk: Json): void {
  const alg = member(jwk, 'alg');
  if (alg !== undefined && !ALGORITHMS.includes(alg as string))
    throw new PublicKeyError(`has an alg that is ${shown(alg)}; an Ed25519 JWK has alg "EdDSA" or "Ed25519", or none`);
  const use = member(jwk, 'use');
  if (use !== undefined && use !== 'sig') throw new PublicKeyError(`has a use that is ${shown(use)}; a signature key has use "sig", or none`);
  const ops = member(jwk, 'key_ops');
  if (ops !== undefined && (!Array.isArray(ops) || ops.some((op) => op !== 'verify'))) throw new PublicKeyError('has key_ops other than ["verify"]');
}

function keyBytes(x: unknown): Buffer {
  if (typeof x !== 'string' || x === '') throw new PublicKeyError(`is a JWK without "x": expected ${JWK_SHAPE}`);
  if (!BASE64URL.test(x)) throw new PublicKeyError('has an "x" that is not unpadded base64url');
  const raw = Buffer.from(x, 'base64url');
  if (raw.toString('base64url') !== x) throw new PublicKeyError('has an "x" that is not canonical base64url');
  if (raw.length !== 32) throw new PublicKeyError(`has an "x" of ${raw.length} bytes; an Ed25519 key has exactly 32`);
  return raw;
}

export function parseJwkPublicKey(jwk: Json): SshEd25519Key {
  refusePrivate(jwk);
  const keys = member(jwk, 'keys');
  if (Array.isArray(keys)) {
    for (const key of keys) if (isObject(key)) refusePrivate(key);
    throw new PublicKeyError(`is a JWK Set; give the one key: ${JWK_SHAPE}`);
  }
  const kty = member(jwk, 'kty');
  if (kty === undefined) throw new PublicKeyError(`is a JSON object without "kty"; expected a JWK ${JWK_SHAPE}`);
  if (kty !== 'OKP') throw new PublicKeyError(`is a JWK whose kty is ${shown(kty)}; only Ed25519 keys are accepted: ${JWK_SHAPE}`);
  const crv = member(jwk, 'crv');
  if (crv !== 'Ed25519') throw new PublicKeyError(`is an OKP JWK whose crv is ${shown(crv)}; only Ed25519 keys are accepted: ${JWK_SHAPE}`);
  checkUsage(jwk);
  return canonicalEd25519Key(keyBytes(member(jwk, 'x')));
}

/** A JWK given as JSON text. */
export function parseJwkText(text: string): SshEd25519Key {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new PublicKeyError(`starts with "{" but is not valid JSON; expected a JWK ${JWK_SHAPE}`);
  }
  if (!isObject(value)) throw new PublicKeyError(`is JSON but not an object; expected a JWK ${JWK_SHAPE}`);
  return parseJwkPublicKey(value);
}
