// An RFC 9421 signature checked with a client's registered public JWK (oauth/client-jwks.ts). The
// algorithm follows from the key, never from the request: ed25519 for an Ed25519 key (with the
// service accounts' strict rules), ecdsa-p256-sha256 for P-256 (r || s, section 3.3.4),
// rsa-pss-sha512 for RSA (section 3.3.1: SHA-512, a 64-byte salt).
import { constants, verify } from 'node:crypto';
import type { HttpSignatureAlgorithm } from '@access-gateway/signing';
import { verifyEd25519 } from '../signing/ed25519.js';
import { clientKeyType, keyObjectOf, withoutKid } from './client-jwks.js';

const ALGORITHM_OF_KEY = { Ed25519: 'ed25519', 'P-256': 'ecdsa-p256-sha256', RSA: 'rsa-pss-sha512' } as const;
const ECDSA_P256_SIGNATURE_BYTES = 64;

/** The one algorithm a registered key verifies HTTP message signatures with. */
export function httpSignatureAlgorithmOf(jwk: Record<string, string>): HttpSignatureAlgorithm {
  return ALGORITHM_OF_KEY[clientKeyType(jwk)];
}

function verifies(base: Buffer, signature: Buffer, jwk: Record<string, string>): boolean {
  switch (httpSignatureAlgorithmOf(jwk)) {
    case 'ed25519':
      return verifyEd25519(base, signature, Buffer.from(jwk.x!, 'base64url'));
    case 'ecdsa-p256-sha256':
      return (
        signature.length === ECDSA_P256_SIGNATURE_BYTES && verify('sha256', base, { key: keyObjectOf(withoutKid(jwk)), dsaEncoding: 'ieee-p1363' }, signature)
      );
    case 'rsa-pss-sha512':
      return verify('sha512', base, { key: keyObjectOf(withoutKid(jwk)), padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 64 }, signature);
  }
}

/** Whether the signature over the base verifies with the key; false for any mismatch or malformed input. */
export function httpSignatureVerifies(base: string, signature: Buffer, jwk: Record<string, string>): boolean {
  try {
    return verifies(Buffer.from(base, 'utf8'), signature, jwk);
  } catch {
    return false;
  }
}
