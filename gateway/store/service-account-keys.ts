// The key list of a service account (key rotation): one key, or two while a client moves from the
// old key to the new one. Both stores apply these same pure steps, each atomically in its own way.
import { MAX_SERVICE_ACCOUNT_KEYS, type KeyAddOutcome, type KeyRemoveOutcome, type ServiceAccountKey, type ServiceAccountRecord } from './types.js';

type KeyFields = Pick<ServiceAccountRecord, 'publicKey' | 'publicKeyBytes' | 'fingerprint' | 'publicKeys'>;

/** The keys of an account, oldest first. */
export function serviceAccountKeys(account: KeyFields): ServiceAccountKey[] {
  return account.publicKeys;
}

/** The account with its key list replaced; the top-level key fields follow the first (oldest) key. */
export function withServiceAccountKeys<T extends KeyFields>(account: T, keys: ServiceAccountKey[]): T {
  const [first] = keys;
  if (!first) throw new Error('a service account keeps at least one key');
  return { ...account, publicKey: first.publicKey, publicKeyBytes: first.publicKeyBytes, fingerprint: first.fingerprint, publicKeys: keys };
}

/** The account with the key added, or why it cannot be. */
export function addingKey<T extends KeyFields>(account: T, key: ServiceAccountKey): { outcome: KeyAddOutcome; account: T } {
  const keys = serviceAccountKeys(account);
  if (keys.some((k) => k.fingerprint === key.fingerprint || k.publicKeyBytes === key.publicKeyBytes)) return { outcome: 'key_exists', account };
  if (keys.length >= MAX_SERVICE_ACCOUNT_KEYS) return { outcome: 'key_limit', account };
  return { outcome: 'added', account: withServiceAccountKeys(account, [...keys, key]) };
}

/** The account with the key of this fingerprint removed, or why it cannot be. */
export function removingKey<T extends KeyFields>(account: T, fingerprint: string): { outcome: KeyRemoveOutcome; account: T } {
  const keys = serviceAccountKeys(account);
  const remaining = keys.filter((k) => k.fingerprint !== fingerprint);
  if (remaining.length === keys.length) return { outcome: 'key_not_found', account };
  if (remaining.length === 0) return { outcome: 'last_key', account };
  return { outcome: 'removed', account: withServiceAccountKeys(account, remaining) };
}
