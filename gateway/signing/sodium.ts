// libsodium through sodium-native, when it is installed: the gateway depends on it (its Ed25519 is
// about twice as fast as OpenSSL's on the bench machine, both ways, and strict by itself); a library
// user who only signs requests need not install a native addon, and gets node:crypto instead.
import { createRequire } from 'node:module';

export interface Sodium {
  crypto_sign_verify_detached(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean;
  crypto_sign_detached(signature: Uint8Array, message: Uint8Array, secretKey: Uint8Array): void;
  crypto_sign_seed_keypair(publicKey: Uint8Array, secretKey: Uint8Array, seed: Uint8Array): void;
  /** Memory outside the JavaScript heap, locked and guarded: for secret keys. */
  sodium_malloc(size: number): Buffer;
}

function loadSodium(): Sodium | undefined {
  try {
    return createRequire(import.meta.url)('sodium-native') as Sodium;
  } catch {
    return undefined;
  }
}

export const sodium = loadSodium();
