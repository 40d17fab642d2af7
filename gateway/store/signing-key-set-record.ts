// The JWT signing key set as the store keeps it: one shared value (meta `jwt-signing-keys`) that
// gateway/oauth/signing-keys.ts reads and changes by compare-and-set. Its shape is declared here,
// below the OAuth layer, because the store brings sets kept in an older form to this one
// (record-upgrades.ts).
import type { JWK } from 'jose';
import type { JwtAlgorithm } from '../config/settings.js';

/** The shared value's name. */
export const SIGNING_KEY_SET_META = 'jwt-signing-keys';

export interface StoredKey {
  kid: string;
  alg: JwtAlgorithm;
  privateJwk: JWK;
  publicJwk: JWK;
  createdAt: string;
}

export interface RetiredKey extends StoredKey {
  retiredAt: string;
}

/** A key an operator retired before its time: no key material is kept, only what the key list shows. */
export interface WithdrawnKey extends Omit<RetiredKey, 'privateJwk' | 'publicJwk'> {
  withdrawnAt: string;
}

export interface StoredKeySet {
  active: StoredKey;
  /** Rotated out, still verifying; newest first. */
  retired: RetiredKey[];
  /** Retired by an operator, newest first; kept (as retired keys are) until their tokens have expired. */
  withdrawn: WithdrawnKey[];
}
