// Client secrets are 256 random bits, so a fast keyed hash (HMAC-SHA-256) is as safe as a slow
// password hash and keeps the token endpoint fast. Comparison is constant-time.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { CredentialStore } from '../store/types.js';

const HASH_KEY_META = 'client-secret-hash-key';

export function generateClientSecret(): string {
  return randomBytes(32).toString('base64url');
}

export class ClientSecretHasher {
  private constructor(private readonly key: Buffer) {}

  /** Loads the shared hash key, creating it on first start (every instance then uses the same). */
  static async open(store: CredentialStore): Promise<ClientSecretHasher> {
    let key = await store.getMeta(HASH_KEY_META);
    if (key === null) {
      const candidate = randomBytes(32).toString('base64url');
      await store.compareAndSetMeta(HASH_KEY_META, null, candidate);
      key = await store.getMeta(HASH_KEY_META);
    }
    return new ClientSecretHasher(Buffer.from(key!, 'base64url'));
  }

  hash(secret: string): string {
    return createHmac('sha256', this.key).update(secret, 'utf8').digest('hex');
  }

  /** Constant-time check; with no stored hash it still does the same work, so timing reveals nothing. */
  matches(secret: string, storedHash: string | undefined): boolean {
    const actual = Buffer.from(this.hash(secret), 'hex');
    const expected = storedHash && /^[0-9a-f]{64}$/.test(storedHash) ? Buffer.from(storedHash, 'hex') : Buffer.alloc(32);
    return timingSafeEqual(actual, expected) && storedHash !== undefined;
  }
}
