// Client secrets are 256 random bits, so a fast keyed hash (HMAC-SHA-256) is as safe as a slow
// password hash and keeps the token endpoint fast. Comparison is constant-time.
//
// The hashing key is shared by every instance: fixed by a file (GATEWAY_CLIENT_SECRET_HASH_KEY_FILE),
// or generated once and kept in the store. A store-kept key can be lost (Redis restarted without
// persistence, FLUSHALL, eviction); instances must then not split, each with its own key. The rule:
//   - the store's key always wins: an instance adopts whatever key the store holds;
//   - an instance that holds a key and finds none in the store writes its own back (compare-and-set
//     from absent: all instances held the same key, so whoever wins, nothing changes);
//   - an instance that holds none creates one only when the store holds no client at all; with
//     clients but no key it refuses (not ready, 503), logging why, since a new key would make every
//     existing client fail; restoring the key, or an instance that still holds it, resolves it;
//   - before a secret is hashed for storage the store is re-read, so a client is never created
//     under a key the store does not hold. Watching the key and a periodic re-read catch the rest.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Logger } from 'pino';
import { CoalescedRefresh } from '../cache/coalesced-refresh.js';
import type { Settings } from '../config/settings.js';
import { readSecretKeyFile } from '../config/secret-key-file.js';
import { GatewayError } from '../errors.js';
import { hmacOfCurrentKey } from './hmac-sha256.js';
import type { CredentialStore } from '../store/types.js';

export const HASH_KEY_META = 'client-secret-hash-key';
const RECHECK_INTERVAL_MS = 30_000;

export function generateClientSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** A stored hash as 32 bytes to compare with; absent or malformed: zeros (the HMAC never is, in practice). */
function storedHashBytes(storedHash: string | undefined): Buffer {
  return storedHash && /^[0-9a-f]{64}$/.test(storedHash) ? Buffer.from(storedHash, 'hex') : Buffer.alloc(32);
}

type HasherLog = Pick<Logger, 'info' | 'warn' | 'error'>;

export class ClientSecretHasher {
  private key: Buffer | undefined;
  private readonly mac = hmacOfCurrentKey(() => this.usableKey());
  /** The stored text of the key (base64url) this instance uses. */
  private held: string | undefined;
  private refusal: string | undefined;
  private readonly rereads = new CoalescedRefresh(() => this.syncOnce());
  private unwatch: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly store: CredentialStore,
    private readonly log: HasherLog | undefined,
    private readonly fixed: boolean,
  ) {}

  /** The hasher for these settings: a file's key is loaded now; a store-kept key by load(). */
  static create(store: CredentialStore, settings: Pick<Settings, 'clientSecretHashKeyFile'>, log?: HasherLog): ClientSecretHasher {
    const hasher = new ClientSecretHasher(store, log, settings.clientSecretHashKeyFile !== undefined);
    if (settings.clientSecretHashKeyFile !== undefined) hasher.key = readSecretKeyFile(settings.clientSecretHashKeyFile);
    return hasher;
  }

  get loaded(): boolean {
    return this.key !== undefined;
  }

  /** Why there is no key (the refusal above), for readiness. */
  get problem(): string | undefined {
    return this.refusal;
  }

  /** Loads the store's key by the rule above and starts following it; throws while the store is down. */
  async load(): Promise<void> {
    if (this.fixed) return;
    if (!this.unwatch) {
      this.unwatch = this.store.watchMeta(HASH_KEY_META, () => void this.sync().catch(() => {}));
      this.timer = setInterval(() => void this.sync().catch(() => {}), RECHECK_INTERVAL_MS);
      this.timer.unref();
    }
    await this.sync();
  }

  /** Re-reads the stored key (shared by concurrent callers; a call during a read gets one more read after it). */
  sync(): Promise<void> {
    if (this.fixed) return Promise.resolve();
    return this.rereads.run();
  }

  hash(secret: string): string {
    return this.hashBytes(secret).toString('hex');
  }

  /** For a secret about to be stored: first makes sure the store holds the key it is hashed with. */
  async hashForStorage(secret: string): Promise<string> {
    await this.sync();
    return this.hash(secret);
  }

  /**
   * Constant-time check against the current hash and a previous one (a secret roll's grace period):
   * the secret is hashed once and always compared with both (an absent one with a dummy), without
   * short-circuit, so timing reveals neither which one matched nor whether a previous one exists.
   */
  matchesEither(secret: string, currentHash: string | undefined, previousHash: string | undefined): boolean {
    const actual = this.hashBytes(secret);
    const current = timingSafeEqual(actual, storedHashBytes(currentHash)) && currentHash !== undefined;
    const previous = timingSafeEqual(actual, storedHashBytes(previousHash)) && previousHash !== undefined;
    return current || previous;
  }

  /** A key for another purpose, derived from the shared one (the same on every instance, different per purpose). */
  derivedKey(purpose: string): Buffer {
    return this.mac(`derived key for ${purpose}`);
  }

  close(): void {
    clearInterval(this.timer);
    this.unwatch?.();
    this.unwatch = undefined;
  }

  private hashBytes(secret: string): Buffer {
    return this.mac(secret);
  }

  private usableKey(): Buffer {
    if (this.key) return this.key;
    throw new GatewayError(
      'store_unavailable',
      this.refusal
        ? 'The client-secret hashing key is missing from the credential store; see the gateway log.'
        : 'The client-secret hashing key is not loaded yet: the credential store has not answered.',
    );
  }

  private async syncOnce(): Promise<void> {
    const stored = await this.store.getMeta(HASH_KEY_META);
    if (stored !== null) return this.adopt(stored);
    if (this.held !== undefined) {
      if (await this.store.compareAndSetMeta(HASH_KEY_META, null, this.held)) {
        this.log?.warn(
          { key: HASH_KEY_META },
          'the client-secret hashing key was missing from the store (Redis restarted empty, flushed or evicted it): restored the key this instance holds',
        );
      }
    } else if ((await this.store.listClients({ limit: 1 })).items.length === 0) {
      await this.store.compareAndSetMeta(HASH_KEY_META, null, randomBytes(32).toString('base64url'));
    } else {
      return this.refuse();
    }
    const now = await this.store.getMeta(HASH_KEY_META);
    if (now !== null) this.adopt(now);
  }

  private adopt(stored: string): void {
    const key = Buffer.from(stored, 'base64url');
    if (key.length < 32) {
      this.refusal = `the stored key ${HASH_KEY_META} is not 32 bytes of base64url`;
      this.log?.error({ key: HASH_KEY_META }, `client-secret hashing key refused: ${this.refusal}`);
      return;
    }
    if (this.held !== undefined && this.held !== stored) {
      this.log?.warn(
        { key: HASH_KEY_META },
        'the client-secret hashing key in the store changed: using the stored key (clients created under the old key no longer authenticate)',
      );
    }
    if (this.refusal !== undefined) this.log?.info({ key: HASH_KEY_META }, 'the client-secret hashing key is back in the store: client authentication resumes');
    this.refusal = undefined;
    this.held = stored;
    this.key = key;
  }

  private refuse(): void {
    const first = this.refusal === undefined;
    this.refusal = `the store holds OAuth clients but no client-secret hashing key (${HASH_KEY_META}); a new key would make every existing client fail`;
    if (first) {
      this.log?.error(
        { key: HASH_KEY_META },
        `client-secret hashing key missing: ${this.refusal}. Not ready until it is back: restore the meta:${HASH_KEY_META} key from a Redis backup, start an instance that still holds it, or set GATEWAY_CLIENT_SECRET_HASH_KEY_FILE to the key`,
      );
    }
  }
}
