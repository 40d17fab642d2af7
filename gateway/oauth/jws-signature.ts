// A JWS signature checked with a public JWK the gateway validated (client-jwks.ts). The header's alg
// must fit the key's type, so a public key is never used as an HMAC secret and an RSA key never
// verifies an ECDSA label: EdDSA/Ed25519 an Ed25519 key (with the service accounts' strict rules),
// ES256 a P-256 key (r || s, RFC 7518 3.4), PS256 an RSA key (RSASSA-PSS, SHA-256, 32-byte salt).
import { constants, verify } from 'node:crypto';
import { verifyEd25519 } from '../signing/ed25519.js';
import { clientKeyType, keyObjectOf, withoutKid, type ClientKeyType } from './client-jwks.js';

const KEY_TYPE_OF_ALG: Readonly<Record<string, ClientKeyType>> = { EdDSA: 'Ed25519', Ed25519: 'Ed25519', ES256: 'P-256', PS256: 'RSA' };
const ES256_SIGNATURE_BYTES = 64;

function verifies(alg: string, signingInput: Buffer, signature: Buffer, jwk: Record<string, string>): boolean {
  const type = clientKeyType(jwk);
  if (KEY_TYPE_OF_ALG[alg] !== type) return false;
  switch (type) {
    case 'Ed25519':
      return verifyEd25519(signingInput, signature, Buffer.from(jwk.x!, 'base64url'));
    case 'P-256':
      return (
        signature.length === ES256_SIGNATURE_BYTES &&
        verify('sha256', signingInput, { key: keyObjectOf(withoutKid(jwk)), dsaEncoding: 'ieee-p1363' }, signature)
      );
    case 'RSA':
      return verify(
        'sha256',
        signingInput,
        { key: keyObjectOf(withoutKid(jwk)), padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST },
        signature,
      );
  }
}

/** Whether the signature over signingInput verifies with the key under alg; false for any mismatch or malformed input. */
export function jwsVerifies(alg: string, signingInput: Buffer, signature: Buffer, jwk: Record<string, string>): boolean {
  try {
    return verifies(alg, signingInput, signature, jwk);
  } catch {
    return false;
  }
}
