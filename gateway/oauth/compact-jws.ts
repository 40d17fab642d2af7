// Signs a JWT (RFC 7515 compact serialization) synchronously. jose signs through WebCrypto, an
// asynchronous job on the thread pool per token, several times node:crypto's cost (BENCHMARKS.md).
// EdDSA goes through libsodium when it is installed (sodium.ts), faster than OpenSSL and the same
// signature (Ed25519 is deterministic). Verification stays with jose.
import { sign, type KeyObject } from 'node:crypto';
import type { JwtAlgorithm } from '../config/settings.js';
import { sodium, type Sodium } from '../signing/sodium.js';

type Signer = (input: Buffer, key: KeyObject) => Buffer;

const ED25519_PUBLIC_KEY_BYTES = 32;
const SODIUM_SECRET_KEY_BYTES = 64;
const ED25519_SIGNATURE_BYTES = 64;

// libsodium's form of each Ed25519 private key (seed and public key), derived once per key and kept
// in libsodium's guarded memory, outside the JavaScript heap.
const sodiumSecretKeys = new WeakMap<KeyObject, Buffer>();

/** The key itself when it can sign EdDSA: node:crypto would sign with any private key (ECDSA, RSA, Ed448) under the EdDSA header. */
function ed25519PrivateKey(key: KeyObject): KeyObject {
  if (key.type !== 'private' || key.asymmetricKeyType !== 'ed25519') throw new TypeError('an EdDSA signing key must be an Ed25519 private key');
  return key;
}

function sodiumSecretKey(libsodium: Sodium, key: KeyObject): Buffer {
  let secretKey = sodiumSecretKeys.get(key);
  if (secretKey === undefined) {
    ed25519PrivateKey(key);
    const seed = Buffer.from(key.export({ format: 'jwk' }).d ?? '', 'base64url');
    secretKey = libsodium.sodium_malloc(SODIUM_SECRET_KEY_BYTES);
    libsodium.crypto_sign_seed_keypair(Buffer.alloc(ED25519_PUBLIC_KEY_BYTES), secretKey, seed);
    seed.fill(0);
    sodiumSecretKeys.set(key, secretKey);
  }
  return secretKey;
}

/** node:crypto's signers, one per JWS algorithm (RFC 7518 3.1, RFC 8037). */
export const OPENSSL_SIGNERS: Readonly<Record<JwtAlgorithm, Signer>> = {
  EdDSA: (input, key) => sign(null, input, ed25519PrivateKey(key)),
  ES256: (input, key) => sign('sha256', input, { key, dsaEncoding: 'ieee-p1363' }),
  RS256: (input, key) => sign('sha256', input, key),
};

function libsodiumEdDSA(libsodium: Sodium): Signer {
  return (input, key) => {
    const signature = Buffer.allocUnsafe(ED25519_SIGNATURE_BYTES);
    libsodium.crypto_sign_detached(signature, input, sodiumSecretKey(libsodium, key));
    return signature;
  };
}

/** The signers with this libsodium: its EdDSA where it is installed, node:crypto's for the rest. */
export function compactJwsSigners(libsodium: Sodium | undefined): Readonly<Record<JwtAlgorithm, Signer>> {
  return libsodium ? { ...OPENSSL_SIGNERS, EdDSA: libsodiumEdDSA(libsodium) } : OPENSSL_SIGNERS;
}

const SIGNERS = compactJwsSigners(sodium);

function base64urlJson(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

export function signCompactJws(
  header: { alg: JwtAlgorithm; kid: string; typ: string },
  payload: object,
  key: KeyObject,
  signers: Readonly<Record<JwtAlgorithm, Signer>> = SIGNERS,
): string {
  const input = `${base64urlJson(header)}.${base64urlJson(payload)}`;
  const signature = signers[header.alg](Buffer.from(input, 'ascii'), key);
  return `${input}.${signature.toString('base64url')}`;
}
