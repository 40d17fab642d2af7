// The credential store contract. Two implementations: Redis (shared by every gateway instance)
// and the embedded single-process store. Both pass the same contract tests (test/store/).
// Methods on the proxied hot path are one round trip each: bearerState and signedRequestState.

export interface ClientRecord {
  clientId: string;
  name: string;
  scopes: string[];
  accountId: string | null;
  /** Hex HMAC-SHA-256 of the client secret under the store's secret-hash key. */
  secretHash: string;
  createdAt: string;
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
}

export interface SignedRequestState {
  /** Null when the Access ID is unknown or the account was deleted. */
  account: ServiceAccountRecord | null;
  /** False when this nonce was already used for this Access ID within the window. */
  nonceFresh: boolean;
}

export interface CredentialStore {
  readonly kind: 'redis' | 'embedded';
  /** Resolves when the store answers; rejects when it cannot be reached. */
  ping(): Promise<void>;
  close(): Promise<void>;

  // OAuth clients
  /** Creates the client; false when the id already exists. */
  createClient(client: ClientRecord): Promise<boolean>;
  getClient(clientId: string): Promise<ClientRecord | null>;
  listClients(): Promise<ClientRecord[]>;
  deleteClient(clientId: string): Promise<boolean>;

  // Tokens
  /** Marks a token id revoked until expiresAtSeconds (epoch), after which the token is dead anyway. */
  revokeToken(jti: string, expiresAtSeconds: number): Promise<void>;
  /** One round trip: does the client still exist, and is this token revoked. */
  bearerState(clientId: string, jti: string): Promise<BearerState>;

  // Shared gateway state (signing keys, the secret-hash key)
  getMeta(name: string): Promise<string | null>;
  /** Sets the value only if it is currently `expected` (null: absent). True when it was set. */
  compareAndSetMeta(name: string, expected: string | null, value: string): Promise<boolean>;

  // Service accounts
  /** Creates the account; false when its id or Access ID already exists. */
  createServiceAccount(account: ServiceAccountRecord): Promise<boolean>;
  getServiceAccount(id: string): Promise<ServiceAccountRecord | null>;
  listServiceAccounts(): Promise<ServiceAccountRecord[]>;
  /** Deletes the account and its Access ID index atomically. */
  deleteServiceAccount(id: string): Promise<boolean>;
  /** One round trip: the account behind an Access ID, and whether the nonce is fresh (it is consumed). */
  signedRequestState(accessId: string, nonce: string, nonceTtlSeconds: number): Promise<SignedRequestState>;
  /** Batched last-used updates; entries for deleted accounts are dropped. */
  recordServiceAccountUse(uses: ServiceAccountUse[]): Promise<void>;

  // Failure throttling
  /** Current failure counts for each key (0 when absent). */
  failureCounts(keys: string[]): Promise<number[]>;
  /** Adds one failure to each key; a key's window starts at its first failure. */
  addFailure(keys: string[], windowSeconds: number): Promise<void>;
  /** Seconds until the key's window ends (0 when absent). */
  failureWindowRemaining(key: string): Promise<number>;

  // Dashboard sessions
  putSession(id: string, data: string, ttlSeconds: number): Promise<void>;
  getSession(id: string): Promise<string | null>;
  deleteSession(id: string): Promise<void>;
}

/** Raised by a store when its backend cannot be reached; the pipeline answers 503 and forwards nothing. */
export class StoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super('credential store unavailable', { cause });
    this.name = 'StoreUnavailableError';
  }
}
