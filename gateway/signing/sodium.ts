// libsodium through sodium-native, an optional dependency: npm installs it unless told not to, and
// the gateway prefers it (its Ed25519 is faster than OpenSSL's both ways, see BENCHMARKS.md, and
// strict by itself). Where the native addon cannot be installed, everything works with node:crypto.
import { createRequire } from 'node:module';

export interface Sodium {
  crypto_sign_verify_detached(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean;
  crypto_sign_detached(signature: Uint8Array, message: Uint8Array, secretKey: Uint8Array): void;
  crypto_sign_seed_keypair(publicKey: Uint8Array, secretKey: Uint8Array, seed: Uint8Array): void;
  /** Memory outside the JavaScript heap, locked and guarded: for secret keys. */
  sodium_malloc(size: number): Buffer;
}

/** sodium-native (or what `load` gives), or undefined where it cannot be loaded. */
export function loadSodium(load: () => unknown = () => createRequire(import.meta.url)('sodium-native')): Sodium | undefined {
  try {
    return load() as Sodium;
  } catch {
    return undefined;
  }
}

export const sodium = loadSodium();
