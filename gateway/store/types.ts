// The credential store contract. Two implementations: Redis (shared by every gateway instance)
// and the embedded single-process store. Both pass the same contract tests (test/store/).
// Methods on the proxied hot path are one round trip each: bearerState; serviceAccountForRequest
// (read-only, before the signature is verified; skipped while the gateway holds the account's
// current version) and consumeNonce (the one write, after it, which also confirms that version);
// and takeRateLimit, only on routes with a rate limit.
import type { RateLimitDecision, RateQuota } from './gcra.js';
import type { StoreNodes } from './node-breakers.js';

export interface ClientRecord {
  clientId: string;
  name: string;
  scopes: string[];
  accountId: string | null;
  /** Hex HMAC-SHA-256 of the client secret under the store's secret-hash key. */
  secretHash: string;
  createdAt: string;
  /** May introspect tokens (RFC 7662 2.1). Absent on records stored before it existed: false. */
  resourceServer?: boolean;
  /**
   * The hash the last secret roll replaced, still accepted until previousSecretExpiresAt (a grace
   * period); absent when the last roll had no grace, or the client never rolled its secret.
   */
  previousSecretHash?: string;
  /** When previousSecretHash stops being accepted (ISO 8601); present exactly when it is. */
  previousSecretExpiresAt?: string;
}

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
  /**
   * When the credential stops working (ISO 8601 UTC); null or absent: never. Absent on records
   * stored before it existed.
   */
  expiresAt?: string | null;
  /**
   * Every key the account holds (at most MAX_SERVICE_ACCOUNT_KEYS), oldest first; the top-level
   * publicKey, publicKeyBytes and fingerprint always mirror the first. Absent on records stored
   * before key rotation existed: then the top-level key is the only one (see serviceAccountKeys).
   */
  publicKeys?: ServiceAccountKey[];
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
}

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
}

export interface BearerState {
  /** Null when the client was deleted (or never existed): its tokens fail at once. */
  client: ClientRecord | null;
  revoked: boolean;
  /**
   * The token's signing key was retired (retireSigningKey): its tokens fail at once. Null when the
   * mark could not be read while the rest could (on a Cluster, the mark's one master is lost):
   * AccessTokens.isRetired decides then.
   */
  signingKeyRetired: boolean | null;
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

/** A failure counter and the count at which it refuses further attempts. */
export interface AttemptLimit {
  key: string;
  max: number;
}

export interface AttemptReservation {
  allowed: boolean;
  /** When refused: seconds until the attempt could be allowed again (at least 1); 0 when allowed. */
  retryAfterSeconds: number;
}

/** One page of a list, in a stable order; nextCursor is null on the last page. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** Where a page starts: after the cursor of the previous page (undefined for the first page). */
export interface PageRequest {
  limit: number;
  cursor?: string | undefined;
}

export interface CredentialStore {
  readonly kind: 'redis' | 'embedded';
  /** On a Redis Cluster: each master's state (a breaker per master, node-breakers.ts); undefined elsewhere. */
  readonly nodes?: StoreNodes | undefined;
  /** Resolves when the store answers; rejects when it cannot be reached. */
  ping(): Promise<void>;
  close(): Promise<void>;

  // OAuth clients
  /** Creates the client; false when the id already exists. */
  createClient(client: ClientRecord): Promise<boolean>;
  getClient(clientId: string): Promise<ClientRecord | null>;
  /** Clients ordered by client id; at most page.limit records read per call. */
  listClients(page: PageRequest): Promise<Page<ClientRecord>>;
  deleteClient(clientId: string): Promise<boolean>;
  /**
   * One atomic step: the client's secret hash becomes secretHash. With graceSeconds > 0 the replaced
   * hash stays accepted until now + graceSeconds, replacing any earlier previous hash (at most two
   * hashes are ever valid); with 0 no previous hash is kept. Every other field is unchanged. The
   * updated record, or null when the client does not exist.
   */
  rollClientSecret(clientId: string, secretHash: string, graceSeconds: number): Promise<ClientRecord | null>;

  // Tokens
  /**
   * Marks a token of this client revoked until expiresAtSeconds (epoch), after which the token is
   * dead anyway. The client id keeps the mark beside the client's record (one Cluster slot).
   */
  revokeToken(clientId: string, jti: string, expiresAtSeconds: number): Promise<void>;
  /** One round trip: does the client still exist, is this token revoked, and was the key that signed it (kid) retired. */
  bearerState(clientId: string, jti: string, kid: string): Promise<BearerState>;
  /**
   * Marks a JWT signing key retired until untilSeconds (epoch), by when every token it signed has
   * expired anyway: from the moment it is stored, bearerState reports its tokens on every instance,
   * whatever key set an instance still holds.
   */
  retireSigningKey(kid: string, untilSeconds: number): Promise<void>;

  // Shared gateway state (signing keys, the secret-hash key)
  getMeta(name: string): Promise<string | null>;
  /** Sets the value only if it is currently `expected` (null: absent). True when it was set; watchers are told. */
  compareAndSetMeta(name: string, expected: string | null, value: string): Promise<boolean>;
  /**
   * Calls onChange after every change of the value through any store object (any instance), and also
   * when a change may have been missed (the watch just began or reconnected): onChange re-reads with
   * getMeta, and must not throw. Returns the function that stops the watch.
   */
  watchMeta(name: string, onChange: () => void): () => void;

  // Service accounts
  /** Creates the account; false when its id or Access ID already exists. */
  createServiceAccount(account: ServiceAccountRecord): Promise<boolean>;
  getServiceAccount(id: string): Promise<ServiceAccountRecord | null>;
  /** Accounts ordered by management id; at most page.limit records read per call. */
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
   * Adds a public key to the account, atomically: refused when the account already holds the key
   * (same fingerprint) or MAX_SERVICE_ACCOUNT_KEYS keys. The Access ID does not change.
   */
  addServiceAccountKey(id: string, key: ServiceAccountKey): Promise<KeyChange<KeyAddOutcome>>;
  /** Removes the key with this fingerprint, atomically; the last key is never removed. */
  removeServiceAccountKey(id: string, fingerprint: string): Promise<KeyChange<KeyRemoveOutcome>>;
  /** Batched last-used updates; entries for deleted accounts are dropped. */
  recordServiceAccountUse(uses: ServiceAccountUse[]): Promise<void>;

  // Failure throttling
  /**
   * One atomic step: when every key's count is under its max, adds one to each (a key's window
   * starts at its first attempt and is not extended) and allows; otherwise changes nothing and
   * refuses until the last blocking window ends. Concurrent callers never overshoot a max.
   */
  reserveAttempt(limits: AttemptLimit[], windowSeconds: number): Promise<AttemptReservation>;
  /** Gives back a reservation (one from each key that still exists): a success is not a failure. */
  releaseAttempt(keys: string[]): Promise<void>;
  /** Reads only: refuses (until the last blocking window ends) when a key's count is at its max. */
  checkAttempt(limits: AttemptLimit[]): Promise<AttemptReservation>;

  // Rate limits (gcra.ts)
  /** One atomic round trip: counts one request of a credential on a route against the rule, or refuses it and writes nothing. */
  takeRateLimit(credentialId: string, routeId: string, rule: RateQuota): Promise<RateLimitDecision>;

  // Dashboard sessions
  putSession(id: string, data: string, ttlSeconds: number): Promise<void>;
  getSession(id: string): Promise<string | null>;
  deleteSession(id: string): Promise<void>;

  // Durability (Redis only; the embedded store snapshots every change to its file)
  /** How the server persists writes: CONFIG GET, else INFO persistence, else unknown. */
  persistence?(): Promise<PersistenceReport>;
  /**
   * Redis only (the embedded store keeps no separate index): reconciles the list indexes and the id
   * pointers with the records (index-repair.ts). Idempotent, safe while other instances run it too.
   */
  repairIndexes?(options?: RepairOptions): Promise<RepairReport>;
}

export interface RepairOptions {
  /** How long an index entry without a record must stay so before it is removed (a create in flight writes its record by then). */
  settleMs?: number;
  /** Keys per SCAN call, ids per index read. */
  batchSize?: number;
}

/** What a repair found and changed. */
export interface RepairReport {
  clients: { records: number; listed: number; indexAdded: number; indexRemoved: number };
  serviceAccounts: { records: number; listed: number; indexAdded: number; indexRemoved: number; pointersAdded: number; pointersRemoved: number };
  /** Servers scanned: every master of a Cluster, else the one server. */
  nodesScanned: number;
  durationMs: number;
}

/** What a Redis server says about its persistence; undefined where it would not say. */
export interface PersistenceReport {
  source: 'config' | 'info' | 'unknown';
  appendonly: boolean | undefined;
  appendfsync: string | undefined;
  /** The RDB snapshot schedule; '' when snapshots are off. */
  save: string | undefined;
  /** Why neither CONFIG nor INFO answered (source 'unknown'). */
  refusal?: string;
}

export { StoreUnavailableError } from './store-unavailable-error.js';
