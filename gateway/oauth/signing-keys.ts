// JWT signing keys, shared by every instance through the store (or fixed by a key file). Keys are
// imported once and cached; verification of an unknown kid triggers one rate-limited refresh, and a
// periodic refresh picks up a rotation made elsewhere.
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import { readFileSync } from 'node:fs';
import type { CryptoKey } from 'jose';
import { SettingsError, type JwtAlgorithm, type Settings } from '../config/settings.js';
import { GatewayError } from '../errors.js';
import type { CredentialStore } from '../store/types.js';

const KEYS_META = 'jwt-signing-keys';
const REFRESH_INTERVAL_MS = 30_000;
const MISS_REFRESH_MIN_INTERVAL_MS = 5_000;

interface StoredKey {
  kid: string;
  alg: JwtAlgorithm;
  privateJwk: JWK;
  publicJwk: JWK;
  createdAt: string;
}

interface StoredKeySet {
  active: StoredKey;
  previous: StoredKey | null;
}

export interface LoadedKey {
  kid: string;
  alg: JwtAlgorithm;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: JWK;
}

async function newKey(alg: JwtAlgorithm): Promise<StoredKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true, ...(alg === 'EdDSA' ? { crv: 'Ed25519' } : {}) });
  const kid = randomUUID();
  return { kid, alg, privateJwk: await exportJWK(privateKey), publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' }, createdAt: new Date().toISOString() };
}

async function load(stored: StoredKey): Promise<LoadedKey> {
  return {
    kid: stored.kid,
    alg: stored.alg,
    privateKey: (await importJWK(stored.privateJwk, stored.alg)) as CryptoKey,
    publicKey: (await importJWK(stored.publicJwk, stored.alg)) as CryptoKey,
    publicJwk: stored.publicJwk,
  };
}

/** Reads a JWKS of private keys (first active, second previous) fixed by configuration. */
function keySetFromFile(file: string, allowed: readonly JwtAlgorithm[]): StoredKeySet {
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
    if (!(allowed as readonly string[]).includes(jwk.alg ?? '')) throw fail(`key ${jwk.kid} has alg ${JSON.stringify(jwk.alg)}, not one of ${allowed.join(', ')}`);
    if (jwk.d === undefined) throw fail(`key ${jwk.kid} has no private part`);
    const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...publicJwk } = jwk;
    return { kid: jwk.kid, alg: jwk.alg as JwtAlgorithm, privateJwk: jwk, publicJwk: { ...publicJwk, use: 'sig' }, createdAt: '' };
  });
  return { active: stored[0]!, previous: stored[1] ?? null };
}

export class SigningKeys {
  private active!: LoadedKey;
  private previous: LoadedKey | null = null;
  private raw = '';
  /** When an unknown kid last caused a refresh, and that refresh while it runs (shared by concurrent misses). */
  private lastMissRefresh = 0;
  private missRefresh: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;

  private fixed = false;

  private constructor(private readonly store: CredentialStore, private readonly algorithm: JwtAlgorithm) {}

  /** Loads the keys fixed by a key file, or the shared keys in the store (generating the first). */
  static async open(store: CredentialStore, settings: Pick<Settings, 'jwtSigningAlgorithm' | 'jwtAllowedAlgorithms' | 'jwtSigningKeyFile'>): Promise<SigningKeys> {
    const keys = new SigningKeys(store, settings.jwtSigningAlgorithm);
    if (settings.jwtSigningKeyFile) {
      const set = keySetFromFile(settings.jwtSigningKeyFile, settings.jwtAllowedAlgorithms);
      keys.active = await load(set.active);
      keys.previous = set.previous ? await load(set.previous) : null;
      keys.fixed = true;
      return keys;
    }
    if ((await store.getMeta(KEYS_META)) === null) {
      await store.compareAndSetMeta(KEYS_META, null, JSON.stringify({ active: await newKey(settings.jwtSigningAlgorithm), previous: null } satisfies StoredKeySet));
    }
    await keys.refresh();
    // The configured algorithm wins: a changed setting rotates to a key of that algorithm.
    if (keys.active.alg !== settings.jwtSigningAlgorithm) await keys.rotate();
    keys.timer = setInterval(() => void keys.refresh().catch(() => {}), REFRESH_INTERVAL_MS);
    keys.timer.unref();
    return keys;
  }

  /** Re-reads the key set; imports only when it changed. */
  async refresh(): Promise<void> {
    if (this.fixed) return;
    const raw = await this.store.getMeta(KEYS_META);
    if (raw === null || raw === this.raw) return;
    const set = JSON.parse(raw) as StoredKeySet;
    const [active, previous] = await Promise.all([load(set.active), set.previous ? load(set.previous) : null]);
    this.active = active;
    this.previous = previous;
    this.raw = raw;
  }

  signingKey(): LoadedKey {
    return this.active;
  }

  /**
   * The key for a kid; an unknown kid may mean another instance rotated, so refresh once. Misses
   * refresh at most once per interval (forged kids cannot flood the store), and concurrent misses
   * wait for the same refresh instead of failing while it runs.
   */
  async verificationKey(kid: string | undefined): Promise<LoadedKey | undefined> {
    const found = this.find(kid);
    if (found || kid === undefined || this.fixed) return found;
    if (!this.missRefresh) {
      if (Date.now() - this.lastMissRefresh < MISS_REFRESH_MIN_INTERVAL_MS) return undefined;
      this.lastMissRefresh = Date.now();
      this.missRefresh = this.refresh().finally(() => {
        this.missRefresh = undefined;
      });
    }
    await this.missRefresh;
    return this.find(kid);
  }

  /** True while the key is published (active or previous); a key rotated out twice is not. */
  knows(kid: string): boolean {
    return this.find(kid) !== undefined;
  }

  private find(kid: string | undefined): LoadedKey | undefined {
    if (kid === this.active.kid) return this.active;
    if (this.previous && kid === this.previous.kid) return this.previous;
    return undefined;
  }

  /** The public JWKS: the active key and the previous one, so tokens signed before a rotation still verify. */
  jwks(): { keys: JWK[] } {
    return { keys: [this.active.publicJwk, ...(this.previous ? [this.previous.publicJwk] : [])] };
  }

  /** Makes a new active key; the old active key becomes the previous one and the older one is dropped. */
  async rotate(): Promise<{ kid: string; previousKid: string }> {
    if (this.fixed) throw new GatewayError('validation_error', 'Signing keys come from GATEWAY_JWT_SIGNING_KEY_FILE: rotate by replacing that file.');
    for (let attempt = 0; attempt < 5; attempt++) {
      const raw = await this.store.getMeta(KEYS_META);
      const current = JSON.parse(raw!) as StoredKeySet;
      const next: StoredKeySet = { active: await newKey(this.algorithm), previous: current.active };
      if (await this.store.compareAndSetMeta(KEYS_META, raw, JSON.stringify(next))) {
        await this.refresh();
        return { kid: next.active.kid, previousKid: current.active.kid };
      }
    }
    throw new Error('signing keys changed concurrently five times; try the rotation again');
  }

  close(): void {
    clearInterval(this.timer);
  }
}
