// Records as older versions stored them, brought to the current shape: a field added since gets
// what its absence meant. The Redis layout migration writes each upgraded record back once (layout
// version 3, again at 4 for the fields added since: redis-record-upgrade.ts) and the embedded store upgrades what it restores from an
// older snapshot (memory/snapshot-file.ts), so readers need no fallback. Pure; a record already
// current comes back as the very same object, so its JSON stays byte for byte what it was.
import type { StoredKey, StoredKeySet, WithdrawnKey } from './signing-key-set-record.js';
import type { ClientRecord, ServiceAccountKey, ServiceAccountRecord } from './types.js';

/**
 * A client as stored before `resourceServer` (absent: not a resource server), `tokenEndpointAuthMethod`
 * and `jwks` (absent: a secret client, Basic or form alike, no keys) or `dpopBoundAccessTokens`
 * (absent: a DPoP proof is optional) existed.
 */
type AddedClientFields = 'resourceServer' | 'tokenEndpointAuthMethod' | 'jwks' | 'dpopBoundAccessTokens';
export type StoredClient = Omit<ClientRecord, AddedClientFields> & Partial<Pick<ClientRecord, AddedClientFields>>;

/** The top-level key of a service account, and when it was made: what an absent key list meant. */
type AccountKeyFields = Pick<ServiceAccountRecord, 'publicKey' | 'publicKeyBytes' | 'fingerprint' | 'createdAt'>;
/** Those, and the fields older versions left out. */
type AccountFields = AccountKeyFields & Pick<ServiceAccountRecord, 'expiresAt' | 'publicKeys'>;

/**
 * A service account (with or without its usage fields) as stored before `expiresAt` (absent: never)
 * or `publicKeys` (absent or empty: the top-level key is the only one, added when the account was made).
 */
export type StoredAccount<T extends AccountFields> = Omit<T, 'expiresAt' | 'publicKeys'> &
  AccountKeyFields & { expiresAt?: string | null; publicKeys?: ServiceAccountKey[] };

/** The set as stored before rotated-out keys were kept: one previous key, retired when the active one was made. */
interface FirstKeySet {
  active: StoredKey;
  previous?: StoredKey | null;
}

/** The set as stored before an operator could retire a key: no `withdrawn`. */
type KeySetBeforeWithdrawal = Omit<StoredKeySet, 'withdrawn'> & { withdrawn?: WithdrawnKey[] };

export type StoredKeySetForm = StoredKeySet | KeySetBeforeWithdrawal | FirstKeySet;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A key set in the current form, the only one readers accept. */
export function isCurrentKeySet(value: unknown): value is StoredKeySet {
  return isObject(value) && isObject(value.active) && Array.isArray(value.retired) && Array.isArray(value.withdrawn);
}

export function upgradeClient(stored: StoredClient): ClientRecord {
  const { resourceServer, tokenEndpointAuthMethod, jwks, dpopBoundAccessTokens } = stored;
  if (resourceServer !== undefined && tokenEndpointAuthMethod !== undefined && jwks !== undefined && dpopBoundAccessTokens !== undefined)
    return stored as ClientRecord;
  return {
    ...stored,
    resourceServer: resourceServer ?? false,
    tokenEndpointAuthMethod: tokenEndpointAuthMethod ?? 'client_secret_basic',
    jwks: jwks ?? [],
    dpopBoundAccessTokens: dpopBoundAccessTokens ?? false,
  };
}

export function upgradeServiceAccount<T extends AccountFields>(stored: StoredAccount<T>): T {
  const keys = stored.publicKeys !== undefined && stored.publicKeys.length > 0 ? stored.publicKeys : undefined;
  if (stored.expiresAt !== undefined && keys) return stored as unknown as T;
  const onlyKey: ServiceAccountKey = {
    publicKey: stored.publicKey,
    publicKeyBytes: stored.publicKeyBytes,
    fingerprint: stored.fingerprint,
    addedAt: stored.createdAt,
  };
  return { ...stored, expiresAt: stored.expiresAt ?? null, publicKeys: keys ?? [onlyKey] } as unknown as T;
}

export function upgradeKeySet(stored: StoredKeySetForm): StoredKeySet {
  if (isCurrentKeySet(stored)) return stored;
  const withdrawn = 'withdrawn' in stored && Array.isArray(stored.withdrawn) ? stored.withdrawn : [];
  if ('retired' in stored && Array.isArray(stored.retired)) return { active: stored.active, retired: stored.retired, withdrawn };
  const previous = 'previous' in stored ? stored.previous : null;
  return { active: stored.active, retired: previous ? [{ ...previous, retiredAt: stored.active.createdAt }] : [], withdrawn };
}

export type RecordKind = 'client' | 'serviceAccount' | 'signingKeySet';

const KEY_FIELDS = ['publicKey', 'publicKeyBytes', 'fingerprint', 'createdAt'] as const;

/** The value upgraded (itself when current), or null when it is no record of that kind at all. */
function upgradedValue(kind: RecordKind, value: unknown): object | null {
  if (!isObject(value)) return null;
  switch (kind) {
    case 'client':
      return upgradeClient(value as StoredClient);
    case 'serviceAccount':
      return KEY_FIELDS.every((field) => typeof value[field] === 'string') ? upgradeServiceAccount(value as StoredAccount<AccountFields>) : null;
    case 'signingKeySet':
      return isObject(value.active) ? upgradeKeySet(value as unknown as StoredKeySetForm) : null;
  }
}

/**
 * The stored JSON of a record brought to its current shape, or null when there is nothing to
 * write: the record is current already, or is no record of that kind at all (not JSON, not an
 * object, no key to fall back on), which is left as it is for its reader to refuse.
 */
export function upgradedJson(kind: RecordKind, raw: string): string | null {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return null;
  }
  const upgraded = upgradedValue(kind, value);
  return upgraded === null || upgraded === value ? null : JSON.stringify(upgraded);
}
