// The ed25519 algorithm of RFC 9421 section 3.3.6: sign and verify the signature base bytes.
// Verification is strict: node:crypto (OpenSSL) accepts small-order and non-canonical points, and
// with a small-order public key a fixed signature (e.g. R = base point, S = 1) verifies for every
// message, so the encodings are checked here before the cofactorless equation is.
// The equation itself is libsodium's when sodium-native is installed (sodium.ts: faster than
// OpenSSL's, and strict by itself), and node:crypto's otherwise.
import { verify, type KeyObject } from 'node:crypto';
import { decodesToCurvePoint } from './ed25519-curve.js';
import { hasNegativeZeroX, hasUnreducedY, isCanonicalScalar, isStrictPoint, smallOrder } from './ed25519-encoding.js';
import { ed25519PublicKey, rawPublicKey } from './keys.js';
import { sodium, type Sodium } from './sodium.js';

const KEY_BYTES = 32;
const SIGNATURE_BYTES = 64;

/** The verification equation on encodings already checked strict: message, signature, raw key. */
export type Ed25519Equation = (message: Uint8Array, signature: Uint8Array, raw: Uint8Array, key: KeyObject | undefined) => boolean;

export type Ed25519Equations = Readonly<Partial<Record<'libsodium' | 'openssl', Ed25519Equation>>> & { openssl: Ed25519Equation };

/** The equations available with this libsodium (none where sodium-native is not installed). */
export function ed25519Equations(libsodium: Sodium | undefined): Ed25519Equations {
  return {
    ...(libsodium
      ? { libsodium: (message: Uint8Array, signature: Uint8Array, raw: Uint8Array) => libsodium.crypto_sign_verify_detached(signature, message, raw) }
      : {}),
    openssl: (message, signature, raw, key) => verify(null, message, key ?? ed25519PublicKey(raw), signature),
  };
}

/** The first of a set: libsodium's where it is installed. */
export function preferredEquation(equations: Ed25519Equations): Ed25519Equation {
  return equations.libsodium ?? equations.openssl;
}

/** Every equation available here. */
export const ED25519_EQUATIONS = ed25519Equations(sodium);

const defaultEquation = preferredEquation(ED25519_EQUATIONS);

/** Signing needs none of this strictness: it is the client package's. */
export { signEd25519 } from '@access-gateway/signing';

/**
 * Verifies per RFC 8032 section 5.1.7 with the usual strictness (as libsodium): S < L, canonical
 * encodings of R and A, neither of small order; then node:crypto's cofactorless check. The public
 * key is its 32 raw bytes (the fast path) or a KeyObject; the message a string (UTF-8) or bytes.
 */
export function verifyEd25519(base: string | Uint8Array, signature: Uint8Array, publicKey: Uint8Array | KeyObject, equation = defaultEquation): boolean {
  if (signature.length !== SIGNATURE_BYTES) return false;
  const raw = publicKey instanceof Uint8Array ? publicKey : rawKeyOf(publicKey);
  if (raw === undefined || raw.length !== KEY_BYTES) return false;
  if (!isCanonicalScalar(signature, KEY_BYTES) || !isStrictPoint(signature, 0) || !isStrictPoint(raw, 0)) return false;
  try {
    return equation(typeof base === 'string' ? Buffer.from(base, 'utf8') : base, signature, raw, publicKey instanceof Uint8Array ? undefined : publicKey);
  } catch {
    return false;
  }
}

/** Why 32 bytes cannot serve as an Ed25519 public key, in words for a registration message; undefined when they can. */
export function ed25519PublicKeyProblem(raw: Uint8Array): string | undefined {
  if (raw.length !== KEY_BYTES) return `it is ${raw.length} bytes, not ${KEY_BYTES}`;
  if (hasUnreducedY(raw)) return 'its encoding is not canonical (y is not reduced modulo 2^255 - 19)';
  if (hasNegativeZeroX(raw)) return 'its encoding is not canonical (x = 0 with the sign bit set)';
  const order = smallOrder(raw);
  if (order !== undefined) {
    const point = order === 1 ? 'the identity point' : `a point of small order ${order}`;
    return `it is ${point}, for which signatures can be forged without any private key`;
  }
  if (!decodesToCurvePoint(raw)) return 'it is not a point on the Ed25519 curve';
  return undefined;
}

// KeyObjects given by library callers: their raw bytes (undefined when not Ed25519), exported once per object.
const rawKeys = new WeakMap<KeyObject, Buffer | undefined>();

function rawKeyOf(key: KeyObject): Buffer | undefined {
  if (rawKeys.has(key)) return rawKeys.get(key);
  let raw: Buffer | undefined;
  try {
    raw = rawPublicKey(key);
  } catch {
    raw = undefined;
  }
  rawKeys.set(key, raw);
  return raw;
}
