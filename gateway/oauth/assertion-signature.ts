// The signature of a client assertion, checked against the client's registered keys. The header's
// alg must fit the key's type (so a public key is never used as an HMAC secret, and an RSA key never
// verifies an ECDSA label): EdDSA/Ed25519 an Ed25519 key (with the service accounts' strict rules),
// ES256 a P-256 key (r || s, RFC 7518 3.4), PS256 an RSA key (RSASSA-PSS, SHA-256, 32-byte salt).
import { constants, verify } from 'node:crypto';
import { verifyEd25519 } from '../signing/ed25519.js';
import type { ClientKey } from '../store/types.js';
import { clientKeyType, keyObjectOf, withoutKid, type ClientKeyType } from './client-jwks.js';
import type { ParsedAssertion } from './client-assertion.js';

const KEY_TYPE_OF_ALG: Readonly<Record<string, ClientKeyType>> = { EdDSA: 'Ed25519', Ed25519: 'Ed25519', ES256: 'P-256', PS256: 'RSA' };
const ES256_SIGNATURE_BYTES = 64;

function verifiesWith(assertion: ParsedAssertion, key: ClientKey): boolean {
  const type = clientKeyType(key.jwk);
  if (KEY_TYPE_OF_ALG[assertion.alg] !== type) return false;
  const { signingInput, signature } = assertion;
  switch (type) {
    case 'Ed25519':
      return verifyEd25519(signingInput, signature, Buffer.from(key.jwk.x!, 'base64url'));
    case 'P-256':
      return (
        signature.length === ES256_SIGNATURE_BYTES &&
        verify('sha256', signingInput, { key: keyObjectOf(withoutKid(key.jwk)), dsaEncoding: 'ieee-p1363' }, signature)
      );
    case 'RSA':
      return verify(
        'sha256',
        signingInput,
        { key: keyObjectOf(withoutKid(key.jwk)), padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST },
        signature,
      );
  }
}

/**
 * Whether a key of the client verifies the assertion: the one its kid names, or without a kid each
 * key (at most two) whose type fits the alg.
 */
export function assertionSignedByClient(assertion: ParsedAssertion, keys: readonly ClientKey[]): boolean {
  const candidates = assertion.kid === undefined ? keys : keys.filter((key) => key.kid === assertion.kid);
  return candidates.some((key) => {
    try {
      return verifiesWith(assertion, key);
    } catch {
      return false;
    }
  });
}
