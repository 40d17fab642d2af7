// OAuth clients and their tokens: the records, revoked tokens, and retired signing keys. Bearer
// requests read all three in one round trip (bearerState).
import type { Page, PageRequest } from './paging.js';

/** How a client authenticates at the token endpoint (RFC 7591 token_endpoint_auth_method). */

/** What a client may use once: RFC 7523 client assertions, RFC 9449 DPoP proofs (by jti) and nonces of its FAPI request signatures. */
export type OneTimeJwt = 'client_assertion' | 'dpop_proof' | 'signature_nonce';
export const CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'private_key_jwt'] as const;
export type ClientAuthMethod = (typeof CLIENT_AUTH_METHODS)[number];

/** A public key a private_key_jwt client signs its assertions with: only public members are stored. */
export interface ClientKey {
  kid: string;
  /** The public JWK (kty and its public members, and kid), as the admin API shows it. */
  jwk: Record<string, string>;
  addedAt: string;
}

export interface ClientRecord {
  clientId: string;
  name: string;
  scopes: string[];
  accountId: string | null;
  /** Hex HMAC-SHA-256 of the client secret under the store's secret-hash key; null for a private_key_jwt client, which has none. */
  secretHash: string | null;
  /**
   * The method registered at creation. A secret client (either client_secret_ method) may use
   * Basic or the form, as before the method was recorded; private_key_jwt only an assertion.
   */
  tokenEndpointAuthMethod: ClientAuthMethod;
  /** The private_key_jwt client's public keys (at most two: rotation); empty for a secret client. */
  jwks: ClientKey[];
  /** Must send a DPoP proof with each token request, so every token it gets is bound to a key (RFC 9449). */
  dpopBoundAccessTokens: boolean;
  createdAt: string;
  /** May introspect tokens (RFC 7662 2.1). */
  resourceServer: boolean;
  /**
   * The hash the last secret roll replaced, still accepted until previousSecretExpiresAt (a grace
   * period); absent when the last roll had no grace, or the client never rolled its secret.
   */
  previousSecretHash?: string;
  /** When previousSecretHash stops being accepted (ISO 8601); present exactly when it is. */
  previousSecretExpiresAt?: string;
}

/** What an update may change of a client: its name, scopes and keys; the rest stays as created. */
export type ClientChange = Partial<Pick<ClientRecord, 'name' | 'scopes' | 'jwks'>>;

/** A client had a token issued or used it, at this time (ISO 8601). */
export interface ClientUse {
  clientId: string;
  at: string;
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

export interface ClientStore {
  /** Creates the client; false when the id already exists. */
  createClient(client: ClientRecord): Promise<boolean>;
  /** Frozen and shared, not copied: the token endpoint reads it on every request (Redis: from the tracked cache while it is usable). */
  getClient(clientId: string): Promise<ClientRecord | null>;
  /** Clients newest first (page-cursor.ts); at most page.limit records read per call. */
  listClients(page: PageRequest): Promise<Page<ClientRecord>>;
  deleteClient(clientId: string): Promise<boolean>;
  /**
   * One atomic step: the client's secret hash becomes secretHash. With graceSeconds > 0 the replaced
   * hash stays accepted until now + graceSeconds, replacing any earlier previous hash (at most two
   * hashes are ever valid); with 0 no previous hash is kept. Every other field is unchanged. The
   * updated record, or null when the client does not exist.
   */
  rollClientSecret(clientId: string, secretHash: string, graceSeconds: number): Promise<ClientRecord | null>;
  /**
   * One atomic step: the fields change(client) names take their new values (name, scopes, keys);
   * every other field is unchanged. A throw from change (the change is refused) leaves the record as
   * it was and is passed on. The updated record, or null when the client does not exist.
   */
  updateClient(clientId: string, change: (client: ClientRecord) => ClientChange): Promise<ClientRecord | null>;
  /**
   * Marks a token of this client revoked until expiresAtSeconds (epoch), after which the token is
   * dead anyway. The client id keeps the mark beside the client's record (one Cluster slot).
   */
  revokeToken(clientId: string, jti: string, expiresAtSeconds: number): Promise<void>;
  /** One round trip: does the client still exist, is this token revoked, and was the key that signed it (kid) retired. */
  bearerState(clientId: string, jti: string, kid: string): Promise<BearerState>;
  /**
   * Records the jti of a single-use JWT of this client (its client assertion, or a DPoP proof made
   * with its key) as used until expiresAtSeconds (epoch), on every instance: true when it was fresh
   * (now used), false when it was used already (a replay). Each use has jtis of its own.
   */
  consumeTokenId(clientId: string, use: OneTimeJwt, jti: string, expiresAtSeconds: number): Promise<boolean>;
  /**
   * Marks a JWT signing key retired until untilSeconds (epoch), by when every token it signed has
   * expired anyway: from the moment it is stored, bearerState reports its tokens on every instance,
   * whatever key set an instance still holds.
   */
  retireSigningKey(kid: string, untilSeconds: number): Promise<void>;
  /** Records each client's last use: kept only for a client that exists, and only when later than the one recorded. */
  recordClientUse(uses: readonly ClientUse[]): Promise<void>;
  /** When each client was last used (null: never, or no such client), in the order asked. */
  clientLastUses(clientIds: readonly string[]): Promise<(string | null)[]>;
}
