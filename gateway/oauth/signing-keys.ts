// JWT signing keys, shared by every instance through the store (or fixed by a key file). The stored
// set holds the active key and the keys rotated out (`retired` in the stored set); a rotated-out key
// stays in the set and the JWKS until every token it can have signed has expired. Every instance
// follows a change of the set at once: the store announces it (watchMeta) and the instance
// re-reads; a periodic re-read is the backstop for an announcement lost with its connection.
// An operator may retire a rotated-out key before that (a stolen key): it leaves the set, keeping
// only its kid (`withdrawn`), and the store marks it retired (retireSigningKey), which every
// instance's bearerState reads with each token, so its tokens fail at once everywhere, before the
// announcement arrives or when it is lost.
import { setTimeout as sleep } from 'node:timers/promises';
import type { JWK } from 'jose';
import { CoalescedRefresh } from '../cache/coalesced-refresh.js';
import type { JwtAlgorithm, Settings } from '../config/settings.js';
import { GatewayError } from '../errors.js';
import { SIGNING_KEY_SET_META as KEYS_META } from '../store/signing-key-set-record.js';
import { StoreUnavailableError, type CredentialStore } from '../store/types.js';
import { CLOCK_TOLERANCE_SECONDS } from './clock-tolerance.js';
import {
  keySetFromFile,
  load,
  newKey,
  parseKeySet,
  type LoadedKey,
  type RetiredKey,
  type StoredKey,
  type StoredKeySet,
  type WithdrawnKey,
} from './signing-key-set.js';

const REFRESH_INTERVAL_MS = 30_000;
/** Unknown kids re-read the set at most this often: forged kids cost the store at most 5 reads a second. */
const MISS_REFRESH_INTERVAL_MS = 200;
/**
 * Kept beyond the token lifetime: an instance that missed the announcement of a rotation signs with
 * the retired key until its backstop re-read, and verification accepts a token past its exp by the
 * clock tolerance.
 */
const RETENTION_MARGIN_SECONDS = REFRESH_INTERVAL_MS / 1000 + CLOCK_TOLERANCE_SECONDS;

interface RetainedKey {
  key: LoadedKey;
  /** Epoch milliseconds after which no token it signed can verify: the key is dropped then. */
  dropAt: number;
}

/** A key as the admin API lists it. */
export interface SigningKeyInfo {
  kid: string;
  alg: JwtAlgorithm;
  /** active: signs and verifies; rotated_out: verifies until verifiesUntil; retired: verifies nothing. */
  state: 'active' | 'rotated_out' | 'retired';
  /** Null for keys from a key file. */
  createdAt: string | null;
  /** ISO 8601; null while active, for a key file's keys, and once retired. */
  verifiesUntil: string | null;
  /** When an operator retired it (ISO 8601); null otherwise. */
  retiredAt: string | null;
}

const UNKNOWN_KID =
  'No signing key with that kid (a rotated-out key leaves the list once every token it signed has expired; GET /admin/v1/signing-keys lists them).';

export interface SigningKeysOptions {
  /** Epoch milliseconds; tests move it to check the retention of retired keys. */
  now?: () => number;
  log?: { warn(details: object, message: string): void };
}

type KeySettings = Pick<Settings, 'jwtSigningAlgorithm' | 'jwtAllowedAlgorithms' | 'jwtSigningKeyFile' | 'tokenTtlSeconds'>;

/** Until the keys are loaded, what needs them fails as the store does: 503, never a guess. */
function notLoaded(): StoreUnavailableError {
  return new StoreUnavailableError(new Error('the signing keys are not loaded yet'));
}

export class SigningKeys {
  private active: LoadedKey | undefined;
  /** When the active key was made (epoch ms); undefined for a key file's keys. */
  private activeCreatedMs: number | undefined;
  private retired: RetainedKey[] = [];
  /** Kids an operator retired: refused without a re-read of the store, and named as retired. */
  private withdrawn = new Set<string>();
  private fixed = false;
  /** The stored set last loaded, and its keys by kid, so that a re-read imports only new keys. */
  private raw = '';
  private imported = new Map<string, LoadedKey>();
  /** The re-reads: one at a time, and a caller arriving during one waits for the next. */
  private readonly rereads = new CoalescedRefresh(() => this.reload());
  /** The next re-read for unknown kids, shared by the misses that wait for it. */
  private missRefresh: Promise<void> | undefined;
  private lastMissRefresh = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | undefined;
  private unwatch: (() => void) | undefined;

  private loading: Promise<void> | undefined;

  private constructor(
    private readonly store: CredentialStore,
    private readonly settings: KeySettings,
    private readonly retentionMs: number,
    private readonly now: () => number,
    private readonly log: SigningKeysOptions['log'],
  ) {}

  private get algorithm(): JwtAlgorithm {
    return this.settings.jwtSigningAlgorithm;
  }

  /** Keys not loaded yet: load() reads them (a key file's at once, the store's once it answers). */
  static create(store: CredentialStore, settings: KeySettings, options: SigningKeysOptions = {}): SigningKeys {
    return new SigningKeys(store, settings, (settings.tokenTtlSeconds + RETENTION_MARGIN_SECONDS) * 1000, options.now ?? Date.now, options.log);
  }

  /** Loads the keys fixed by a key file, or the shared keys in the store (generating the first). */
  static async open(store: CredentialStore, settings: KeySettings, options: SigningKeysOptions = {}): Promise<SigningKeys> {
    const keys = SigningKeys.create(store, settings, options);
    await keys.load();
    return keys;
  }

  get loaded(): boolean {
    return this.active !== undefined;
  }

  /** Loads the keys once (concurrent callers share the attempt); a failed attempt can be retried. */
  load(): Promise<void> {
    if (this.active) return Promise.resolve();
    this.loading ??= this.loadOnce().finally(() => (this.loading = undefined));
    return this.loading;
  }

  private async loadOnce(): Promise<void> {
    const settings = this.settings;
    if (settings.jwtSigningKeyFile) {
      const set = keySetFromFile(settings.jwtSigningKeyFile, settings.jwtAllowedAlgorithms);
      this.retired = set.previous ? [{ key: await load(set.previous), dropAt: Number.POSITIVE_INFINITY }] : [];
      this.fixed = true;
      this.active = await load(set.active);
      return;
    }
    try {
      if ((await this.store.getMeta(KEYS_META)) === null) {
        await this.store.compareAndSetMeta(
          KEYS_META,
          null,
          JSON.stringify({ active: await newKey(settings.jwtSigningAlgorithm, this.now()), retired: [], withdrawn: [] } satisfies StoredKeySet),
        );
      }
      // Watching before the first read: a rotation made in between is not missed.
      this.unwatch = this.store.watchMeta(KEYS_META, () => void this.refresh().catch(() => {}));
      await this.refresh();
      // The configured algorithm wins: a changed setting rotates to a key of that algorithm.
      if (this.active && this.active.alg !== settings.jwtSigningAlgorithm) await this.rotate();
      if (!this.active) throw notLoaded();
    } catch (error) {
      this.close();
      this.active = undefined;
      this.raw = '';
      throw error;
    }
    this.timer = setInterval(() => void this.refresh().catch(() => {}), REFRESH_INTERVAL_MS);
    this.timer.unref();
  }

  /**
   * Re-reads the key set. Concurrent calls share one read, but a call made while a read runs gets
   * a further read after it: whoever awaits refresh() sees the set as it was when they called.
   */
  refresh(): Promise<void> {
    if (this.fixed) return Promise.resolve();
    return this.rereads.run();
  }

  signingKey(): LoadedKey {
    if (!this.active) throw notLoaded();
    return this.active;
  }

  /**
   * The key for a kid. An unknown kid may be the new key of a rotation whose announcement has not
   * arrived yet, so it waits for a re-read that begins after it arrived; no miss is remembered, so
   * a forged kid never makes a legitimate one fail. The re-reads are shared by all waiting misses
   * and start at most once per MISS_REFRESH_INTERVAL_MS, one at a time.
   */
  async verificationKey(kid: string | undefined): Promise<LoadedKey | undefined> {
    if (!this.active) throw notLoaded();
    const found = this.find(kid);
    if (found || kid === undefined || this.fixed || this.withdrawn.has(kid)) return found;
    await this.refreshAfterMiss();
    return this.find(kid);
  }

  /** True while the key is published (active, or retired with tokens that may still be unexpired). */
  knows(kid: string): boolean {
    return this.find(kid) !== undefined;
  }

  /** True when an operator retired the key (as far as this instance has re-read the set). */
  wasRetired(kid: string): boolean {
    return this.withdrawn.has(kid);
  }

  /** The public JWKS: the active key, then the retained retired keys, newest first. */
  jwks(): { keys: JWK[] } {
    if (!this.active) throw notLoaded();
    const now = this.now();
    return { keys: [this.active.publicJwk, ...this.retired.filter((r) => r.dropAt > now).map((r) => r.key.publicJwk)] };
  }

  /** How old the active key is, in seconds; undefined when unknown (a key file's keys, or none loaded). */
  activeKeyAgeSeconds(): number | undefined {
    return this.active && this.activeCreatedMs !== undefined ? Math.max(0, (this.now() - this.activeCreatedMs) / 1000) : undefined;
  }

  /** Makes a new active key; the old one is retired, and retired keys whose tokens have all expired leave the store. */
  async rotate(): Promise<{ kid: string; previousKid: string }> {
    if (this.fixed) throw new GatewayError('validation_error', 'Signing keys come from GATEWAY_JWT_SIGNING_KEY_FILE: rotate by replacing that file.');
    return this.changeSet('rotation', async (current, now) => {
      const next: StoredKeySet = {
        active: await newKey(this.algorithm, now),
        retired: [{ ...current.active, retiredAt: new Date(now).toISOString() }, ...current.retired.filter((k) => this.dropAt(k) > now)],
        withdrawn: current.withdrawn.filter((k) => this.dropAt(k) > now),
      };
      return { next, result: { kid: next.active.kid, previousKid: current.active.kid } };
    });
  }

  /**
   * Retires a rotated-out key at once (a stolen key): it leaves the JWKS, and its tokens fail on
   * every instance from the moment the store holds the mark. The active key is refused (rotate
   * first); retiring a retired key again changes nothing and says so.
   */
  async retire(kid: string): Promise<{ key: SigningKeyInfo; alreadyRetired: boolean }> {
    if (this.fixed)
      throw new GatewayError(
        'validation_error',
        'Signing keys come from GATEWAY_JWT_SIGNING_KEY_FILE: retire a key by removing it from that file on every instance.',
      );
    return this.changeSet<{ key: SigningKeyInfo; alreadyRetired: boolean }>('retirement', async (current, now) => {
      if (current.active.kid === kid) {
        throw new GatewayError(
          'signing_key_active',
          `${kid} is the active signing key: rotate first (POST /admin/v1/signing-keys/rotate, gatewayctl keys rotate), then retire it.`,
        );
      }
      const done = current.withdrawn.find((k) => k.kid === kid && this.dropAt(k) > now);
      if (done) return { result: { key: this.withdrawnInfo(done), alreadyRetired: true } };
      const target = current.retired.find((k) => k.kid === kid && this.dropAt(k) > now);
      if (!target) throw new GatewayError('not_found', UNKNOWN_KID);
      // The mark first, for as long as any token of the key may verify anywhere: once the answer
      // is given, every instance refuses the key's tokens, whatever copy of the set it holds.
      await this.store.retireSigningKey(kid, Math.ceil((now + this.retentionMs) / 1000));
      const { privateJwk: _private, publicJwk: _public, ...kept } = target;
      const withdrawn: WithdrawnKey = { ...kept, withdrawnAt: new Date(now).toISOString() };
      const next: StoredKeySet = {
        active: current.active,
        retired: current.retired.filter((k) => k.kid !== kid && this.dropAt(k) > now),
        withdrawn: [withdrawn, ...current.withdrawn.filter((k) => this.dropAt(k) > now)],
      };
      return { next, result: { key: this.withdrawnInfo(withdrawn), alreadyRetired: false } };
    });
  }

  /**
   * Changes the stored set by compare-and-set, read again on a concurrent change (five tries); a
   * change that writes nothing (no next) answers at once. This instance re-reads what it wrote.
   */
  private async changeSet<R>(what: string, change: (current: StoredKeySet, now: number) => Promise<{ next?: StoredKeySet; result: R }>): Promise<R> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const raw = await this.storedSet();
      const { next, result } = await change(parseKeySet(raw), this.now());
      if (!next) return result;
      if (await this.store.compareAndSetMeta(KEYS_META, raw, JSON.stringify(next))) {
        await this.refresh();
        return result;
      }
    }
    throw new Error(`signing keys changed concurrently five times; try the ${what} again`);
  }

  /** Every key of the stored set (or the key file), the active one first, as the store holds them now. */
  async list(): Promise<SigningKeyInfo[]> {
    if (this.fixed) {
      const fixedKey = (key: LoadedKey, state: SigningKeyInfo['state']): SigningKeyInfo => ({
        kid: key.kid,
        alg: key.alg,
        state,
        createdAt: null,
        verifiesUntil: null,
        retiredAt: null,
      });
      return [fixedKey(this.signingKey(), 'active'), ...this.retired.map((r) => fixedKey(r.key, 'rotated_out'))];
    }
    const set = parseKeySet(await this.storedSet());
    const now = this.now();
    const createdAt = (key: { createdAt: string }) => key.createdAt || null;
    return [
      { kid: set.active.kid, alg: set.active.alg, state: 'active', createdAt: createdAt(set.active), verifiesUntil: null, retiredAt: null },
      ...set.retired
        .filter((k) => this.dropAt(k) > now)
        .map((k): SigningKeyInfo => ({
          kid: k.kid,
          alg: k.alg,
          state: 'rotated_out',
          createdAt: createdAt(k),
          verifiesUntil: new Date(this.dropAt(k)).toISOString(),
          retiredAt: null,
        })),
      ...set.withdrawn.filter((k) => this.dropAt(k) > now).map((k) => this.withdrawnInfo(k)),
    ];
  }

  close(): void {
    clearInterval(this.timer);
    this.unwatch?.();
    this.unwatch = undefined;
  }

  private find(kid: string | undefined): LoadedKey | undefined {
    if (kid === undefined || !this.active) return undefined;
    if (kid === this.active.kid) return this.active;
    const now = this.now();
    return this.retired.find((r) => r.key.kid === kid && r.dropAt > now)?.key;
  }

  private dropAt(key: Pick<RetiredKey, 'retiredAt'>): number {
    // An unreadable retiredAt gives NaN, which compares false: such a key is dropped (fail closed).
    return Date.parse(key.retiredAt) + this.retentionMs;
  }

  private withdrawnInfo(key: WithdrawnKey): SigningKeyInfo {
    return { kid: key.kid, alg: key.alg, state: 'retired', createdAt: key.createdAt || null, verifiesUntil: null, retiredAt: key.withdrawnAt };
  }

  /** The stored set; one the store lost is first written back from this instance's copy (reload). */
  private async storedSet(): Promise<string> {
    let raw = await this.store.getMeta(KEYS_META);
    if (raw === null && this.raw) {
      await this.refresh();
      raw = await this.store.getMeta(KEYS_META);
    }
    if (raw === null) throw new Error('the signing key set is missing from the store');
    return raw;
  }

  /** A re-read that begins after now, shared with the other misses waiting for it. */
  private refreshAfterMiss(): Promise<void> {
    if (!this.missRefresh) {
      const wait = Math.max(0, this.lastMissRefresh + MISS_REFRESH_INTERVAL_MS - Date.now());
      // A referenced timer: a verification waits on it, so it must keep the process alive (200 ms at most).
      this.missRefresh = (wait > 0 ? sleep(wait) : Promise.resolve()).then(() => {
        // Misses from here on wait for the next re-read: this one may begin before they arrive.
        this.missRefresh = undefined;
        this.lastMissRefresh = Date.now();
        return this.refresh();
      });
    }
    return this.missRefresh;
  }

  /** Loads the stored set when it changed; retired keys past their retention are not even imported. */
  private async reload(): Promise<void> {
    let raw = await this.store.getMeta(KEYS_META);
    if (raw === null && this.raw) {
      // The store lost the set (Redis restarted empty, flushed): write back the one this instance
      // holds rather than follow another instance into a new set that voids every issued token.
      if (await this.store.compareAndSetMeta(KEYS_META, null, this.raw)) {
        this.log?.warn(
          { key: KEYS_META },
          'the JWT signing keys were missing from the store (Redis restarted empty or was flushed): restored the set this instance holds',
        );
      }
      raw = await this.store.getMeta(KEYS_META);
    }
    if (raw === null || raw === this.raw) return;
    const set = parseKeySet(raw);
    const now = this.now();
    const kept = set.retired.filter((k) => this.dropAt(k) > now);
    const imported = new Map<string, LoadedKey>();
    const importKey = async (stored: StoredKey) => {
      const previous = this.imported.get(stored.kid);
      const key = previous && JSON.stringify(previous.publicJwk) === JSON.stringify(stored.publicJwk) ? previous : await load(stored);
      imported.set(stored.kid, key);
      return key;
    };
    const [active, ...retired] = await Promise.all([set.active, ...kept].map(importKey));
    this.active = active!;
    this.activeCreatedMs = Date.parse(set.active.createdAt) || undefined;
    this.retired = retired.map((key, i) => ({ key, dropAt: this.dropAt(kept[i]!) }));
    this.withdrawn = new Set(set.withdrawn.map((k) => k.kid));
    this.imported = imported;
    this.raw = raw;
  }
}
