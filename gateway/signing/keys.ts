// Public keys for verification: imported from their 32 raw bytes once and cached, so verifying a
// request never re-imports a key. The signer's key handling is the client package's, re-exported.
import { createPublicKey, type KeyObject } from 'node:crypto';
import { boundedCache } from '../cache/bounded-cache.js';

export { generateSigningKey, loadPrivateKey, publicKeyPem, rawPublicKey, sshPublicKeyLine } from '@access-gateway/signing';

const publicKeys = boundedCache<string, KeyObject>(10_000);

/** A KeyObject for 32 raw Ed25519 public key bytes (given as bytes or base64url). */
export function ed25519PublicKey(raw: Uint8Array | string): KeyObject {
  const x = typeof raw === 'string' ? raw : Buffer.from(raw).toString('base64url');
  let key = publicKeys.get(x);
  if (!key) {
    if (Buffer.from(x, 'base64url').length !== 32) throw new Error('an Ed25519 public key is 32 bytes');
    key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
    publicKeys.set(x, key);
  }
  return key;
}
