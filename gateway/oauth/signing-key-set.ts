// The stored JWT signing key set and its keys: what the store holds (the active key, the keys
// rotated out and still verifying, the kids an operator retired; the shape is declared with the
// store, gateway/store/signing-key-set-record.ts), a key file's keys, and a stored key made usable.
// No state: gateway/oauth/signing-keys.ts keeps the loaded set and changes the stored one.
import { KeyObject, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import { SettingsError, type JwtAlgorithm } from '../config/settings.js';
import { isCurrentKeySet } from '../store/record-upgrades.js';
import type { StoredKey, StoredKeySet } from '../store/signing-key-set-record.js';

export type { RetiredKey, StoredKey, StoredKeySet, WithdrawnKey } from '../store/signing-key-set-record.js';

export interface LoadedKey {
  kid: string;
  alg: JwtAlgorithm;
  privateKey: CryptoKey;
  /** The same private key for node:crypto's synchronous signing (compact-jws.ts). */
  signingKey: KeyObject;
  publicKey: CryptoKey;
  publicJwk: JWK;
}

export async function newKey(alg: JwtAlgorithm, now: number): Promise<StoredKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true, ...(alg === 'EdDSA' ? { crv: 'Ed25519' } : {}) });
  const kid = randomUUID();
  return {
    kid,
    alg,
    privateJwk: await exportJWK(privateKey),
    publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' },
    createdAt: new Date(now).toISOString(),
  };
}

export async function load(stored: StoredKey): Promise<LoadedKey> {
  const privateKey = (await importJWK(stored.privateJwk, stored.alg)) as CryptoKey;
  return {
    kid: stored.kid,
    alg: stored.alg,
    privateKey,
    signingKey: KeyObject.from(privateKey),
    publicKey: (await importJWK(stored.publicJwk, stored.alg)) as CryptoKey,
    publicJwk: stored.publicJwk,
  };
}

/**
 * The set as the store holds it. Sets stored in an older form were brought to this one by the
 * store (gateway/store/record-upgrades.ts); anything else is refused rather than read as a guess.
 */
export function parseKeySet(raw: string): StoredKeySet {
  const set: unknown = JSON.parse(raw);
  if (!isCurrentKeySet(set)) throw new Error('the stored signing key set is not in the current form (active, retired, withdrawn)');
  return { active: set.active, retired: set.retired, withdrawn: set.withdrawn };
}

/** Reads a JWKS of private keys (first active, second previous) fixed by configuration. */
export function keySetFromFile(file: string, allowed: readonly JwtAlgorithm[]): { active: StoredKey; previous: StoredKey | null } {
  const fail = (problem: string) => new SettingsError('GATEWAY_JWT_SIGNING_KEY_FILE', `${file} ${problem}`);
  let doc: { keys?: JWK[] };
  try {
    doc = JSON.parse(readFileSync(file, 'utf8')) as { keys?: JWK[] };
  } catch (error) {
    throw fail(`is not a readable JSON file: ${(error as Error).message}`);
  }
  if (!Array.isArray(doc.keys) || doc.keys.length === 0 || doc.keys.length > 2) throw fail('must be a JWKS with one or two private keys');
  const stored = doc.keys.map((jwk, i): StoredKey => {
    if (typeof jwk.kid !== 'string' || !jwk.kid) throw fail(`key ${i + 1} has no kid`);
    if (!(allowed as readonly string[]).includes(jwk.alg ?? ''))
      throw fail(`key ${jwk.kid} has alg ${JSON.stringify(jwk.alg)}, not one of ${allowed.join(', ')}`);
    if (jwk.d === undefined) throw fail(`key ${jwk.kid} has no private part`);
    const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...publicJwk } = jwk;
    return { kid: jwk.kid, alg: jwk.alg as JwtAlgorithm, privateJwk: jwk, publicJwk: { ...publicJwk, use: 'sig' }, createdAt: '' };
  });
  return { active: stored[0]!, previous: stored[1] ?? null };
}
