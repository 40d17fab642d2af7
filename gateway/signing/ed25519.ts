// The ed25519 algorithm of RFC 9421 section 3.3.6: sign and verify the signature base bytes.
import { sign, verify, type KeyObject } from 'node:crypto';

export function signEd25519(base: string, privateKey: KeyObject): Buffer {
  return sign(null, Buffer.from(base, 'utf8'), privateKey);
}

export function verifyEd25519(base: string, signature: Uint8Array, publicKey: KeyObject): boolean {
  // An Ed25519 signature is 64 bytes; anything else cannot verify.
  if (signature.length !== 64) return false;
  try {
    return verify(null, Buffer.from(base, 'utf8'), publicKey, signature);
  } catch {
    return false;
  }
}
