// Service accounts: the records (each with one key, or two while it rotates) and the signed-request
// hot path: serviceAccountForRequest reads before the signature is verified, consumeNonce writes
// once it is.
import type { Page, PageRequest } from './paging.js';

export interface ServiceAccountRecord {
  /** Management identifier (admin API paths, dashboard, x-gateway-service-account-id). */
  id: string;
  /** The x-access-id value; shown in full only once, at creation. */
  accessId: string;
  description: string;
  /** The ssh-ed25519 line as supplied. */
  publicKey: string;
  /** The 32 raw key bytes, base64url. */
  publicKeyBytes: string;
  /** SHA256:... as ssh-keygen -lf prints it. */
  fingerprint: string;
  permissions: string[];
  allowedIps: string[];
  accountId: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  lastUsedIp: string | null;
  /** When the credential stops working (ISO 8601 UTC); null: never. */
  expiresAt: string | null;
  /**
   * Every key the account holds (at least one, at most MAX_SERVICE_ACCOUNT_KEYS), oldest first; the
   * top-level publicKey, publicKeyBytes and fingerprint always mirror the first.
   */
  publicKeys: ServiceAccountKey[];
}

/** One public key of a service account. */
export interface ServiceAccountKey {
  /** The ssh-ed25519 line. */
  publicKey: string;
  /** The 32 raw key bytes, base64url. */
  publicKeyBytes: string;
  /** SHA256:... as ssh-keygen -lf prints it. */
  fingerprint: string;
  addedAt: string;
  /**
   * When a signature by this key last verified (recorded with the account's last use, a few seconds
   * behind); null: never since it was added. Read from the use record, never stored in the account.
   */
  lastUsedAt?: string | null;
}

/** What an update may change of a service account. */
export type ServiceAccountChange = Partial<Pick<ServiceAccountRecord, 'description' | 'permissions' | 'allowedIps' | 'expiresAt'>>;

/** A service account holds one key, or two while it rotates. */
export const MAX_SERVICE_ACCOUNT_KEYS = 2;

/** What adding a key found: added, or why not. */
export type KeyAddOutcome = 'added' | 'account_not_found' | 'key_exists' | 'key_limit';
/** What removing a key found: removed, or why not. */
export type KeyRemoveOutcome = 'removed' | 'account_not_found' | 'key_not_found' | 'last_key';

export interface KeyChange<O> {
  outcome: O;
  /** The account after the change (or as it stands, when refused); null when it does not exist. */
  account: ServiceAccountRecord | null;
}

export interface ServiceAccountUse {
  accessId: string;
  at: string;
  ip: string;
  /** The fingerprint of the key whose signature verified: its own last use. */
  fingerprint: string;
}

/** The account behind an Access ID (null when unknown or deleted), and whether the nonce was used. */
export type SignedRequestState =
  | { account: null; nonceUsed: false }
  | {
      account: ServiceAccountRecord;
      /** True when this nonce was already used for this Access ID within the window. */
      nonceUsed: boolean;
      /** Opaque; changes whenever the account's record does (keys, permissions, addresses), not on use. */
      version: string;
    };

/**
 * What consuming a nonce found: it was fresh (now used), already used, the account is gone, or
 * (when a version was given) the account's record is no longer that version: nothing consumed.
 */
export type NonceConsumption = 'fresh' | 'used' | 'account_gone' | 'account_changed';

export interface ServiceAccountStore {
  /** Creates the account; false when its id or Access ID already exists. */
  createServiceAccount(account: ServiceAccountRecord): Promise<boolean>;
  getServiceAccount(id: string): Promise<ServiceAccountRecord | null>;
  /** Accounts newest first (page-cursor.ts); at most page.limit records read per call. */
  listServiceAccounts(page: PageRequest): Promise<Page<ServiceAccountRecord>>;
  /** The account behind a full Access ID (the admin API's ?access_id= lookup). */
  findServiceAccountByAccessId(accessId: string): Promise<ServiceAccountRecord | null>;
  /** Deletes the account: its Access ID fails at once on every instance; its index entries go right after. */
  deleteServiceAccount(id: string): Promise<boolean>;
  /** Deletes the account behind a full Access ID, found without any index; its id, or null when none. */
  deleteServiceAccountByAccessId(accessId: string): Promise<string | null>;
  /** One read-only round trip: the account behind an Access ID, and whether the nonce was used. Writes nothing. */
  serviceAccountForRequest(accessId: string, nonce: string): Promise<SignedRequestState>;
  /**
   * Marks the nonce used for nonceTtlSeconds, only while the account exists and, when `version` is
   * given, is still that version (checked in the same atomic step); called once the signature verified.
   * With the signature's `createdSeconds`, a Redis store that may have lost used nonces in a failover
   * refuses a signature created before it (SignaturePredatesFailoverError, failover-fence.ts); one
   * that waits for replicas per nonce rejects with ChangeNotConfirmedError when they lag.
   */
  consumeNonce(accessId: string, nonce: string, nonceTtlSeconds: number, version?: string, createdSeconds?: number): Promise<NonceConsumption>;
  /**
   * One atomic step: the fields given take their new values (description, permissions, allowed
   * addresses, expiry); the keys, the Access ID and the rest stay. The record's version changes, so
   * every instance checks the next request against the new values. The updated record, or null when
   * the account does not exist.
   */
  updateServiceAccount(id: string, change: ServiceAccountChange): Promise<ServiceAccountRecord | null>;
  /**
   * Adds a public key to the account, atomically: refused when the account already holds the key
   * (same fingerprint) or MAX_SERVICE_ACCOUNT_KEYS keys. The Access ID does not change.
   */
  addServiceAccountKey(id: string, key: ServiceAccountKey): Promise<KeyChange<KeyAddOutcome>>;
  /** Removes the key with this fingerprint, atomically; the last key is never removed. */
  removeServiceAccountKey(id: string, fingerprint: string): Promise<KeyChange<KeyRemoveOutcome>>;
  /** Batched last-used updates; entries for deleted accounts are dropped. */
  recordServiceAccountUse(uses: ServiceAccountUse[]): Promise<void>;
}
