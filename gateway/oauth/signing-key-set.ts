// The stored JWT signing key set and its keys: what the store holds (the active key, the keys
// rotated out and still verifying, the kids an operator retired), how a set stored by an older
// version reads, a key file's keys, and a stored key made usable. No state: gateway/oauth/signing-keys.ts
// keeps the loaded set and changes the stored one.
import { KeyObject, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import { SettingsError, type JwtAlgorithm } from '../config/settings.js';

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
  /** Retired by an operator, newest first; kept (as retired keys are) until their tokens have expired. Absent in sets stored before. */
  withdrawn: WithdrawnKey[];
}

/** The set as stored before retired keys existed: one previous key, retired when the active one was made. */
interface LegacyKeySet {
  active: StoredKey;
  previous?: StoredKey | null;
}

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

export function parseKeySet(raw: string): StoredKeySet {
  const set = JSON.parse(raw) as Partial<StoredKeySet> & LegacyKeySet;
  const withdrawn = Array.isArray(set.withdrawn) ? set.withdrawn : [];
  if (Array.isArray(set.retired)) return { active: set.active, retired: set.retired, withdrawn };
  return { active: set.active, retired: set.previous ? [{ ...set.previous, retiredAt: set.active.createdAt }] : [], withdrawn };
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
