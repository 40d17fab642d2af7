// The Redis key layout, designed for Redis Cluster. Every key of one credential carries that
// credential's hash tag ({<id>}), so each multi-key step on it (a script, an MGET) stays in one
// slot, while different credentials spread over every master. Indexes that list everything are
// separate keys, never touched in the same command as a record (that would be CROSSSLOT).
//
//   <p>client:{<clientId>}                 client record (JSON)
//   <p>client:{<clientId>}:used            last use (ISO 8601 time), deleted with the record
//   <p>client:{<clientId>}:revoked:<jti>   revocation mark, expires with the token
//   <p>client:{<clientId>}:assertion:<h>  a used client assertion (h: SHA-256 of its jti), expires with it
//   <p>client:{<clientId>}:dpop:<h>       a used DPoP proof made with the client's key (h: SHA-256 of its jti)
//   <p>client:{<clientId>}:sig-nonce:<h>  a used nonce of the client's FAPI request signatures (h: its SHA-256)
//   <p>client:{<clientId>}:void            a cancelled create: this client can never be created (index-repair.ts)
//   <p>sa:{<accessId>}                     service account record (JSON, without usage)
//   <p>sa:{<accessId>}:used                last use (JSON {at, ip})
//   <p>sa:{<accessId>}:nonce:<nonce>       used nonce, expires with the signature window
//   <p>sa:{<accessId>}:void                a cancelled create of this Access ID (index-repair.ts)
//   <p>sa-id:{<id>}                        the account's Access ID, found by its id; new ids share the
//                                          record's slot (account-ids.ts)
//   <p>sa-id:{<id>}:void                   a cancelled create of this id (index-repair.ts)
//   <p>rl:{<credentialId>}:<route>         rate-limit state (redis-rate-limit.ts), in its credential's slot
//   <p>index:clients                       sorted set of client ids, scored by creation time (ms)
//   <p>index:sas                           sorted set of service account ids, scored likewise
//   <p>index:sa-ids                        hash: service account id -> Access ID, of accounts created
//                                          before the sa-id pointers; read only where a pointer is missing
//   <p>fail:{fail}:<key>                   failure counters (one tag: a reservation is atomic over its keys)
//   <p>meta:<name>, <p>session:<id>        single-key values, hashed over the whole key
//   <p>signing-key-retired:<kid>           a retired JWT signing key, expires with its last token
//   <p>failover-fences                     hash: promoted master's replication id -> when a gateway first
//                                          met it (failover-fence.ts)
//   <p>layout:version                      '4' once the store is in this layout with every record in
//                                          its current shape (redis-layout-migration.ts)
import type { OneTimeJwt } from './ports/clients.js';

/** The name part of a used-once key, per use: each use has values of its own. */
const USED_KEY_NAMES: Readonly<Record<OneTimeJwt, string>> = { client_assertion: 'assertion', dpop_proof: 'dpop', signature_nonce: 'sig-nonce' };
export type CredentialKind = 'client' | 'sa';

/** Escapes a key prefix for SCAN MATCH. */
export function globEscape(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}

/**
 * A key of one credential: `<prefix><kind>:{<id>}`, plus `:<suffix>` when given. Keys made here for
 * one credential share its Cluster slot, so they can be used together in one script or MGET.
 */
export function credentialKey(prefix: string, kind: CredentialKind, credentialId: string, suffix?: string): string {
  return `${prefix}${kind}:{${credentialId}}${suffix === undefined ? '' : `:${suffix}`}`;
}

/** The key names of one prefix. */
export class RedisKeys {
  constructor(readonly prefix: string) {}

  client(clientId: string): string {
    return credentialKey(this.prefix, 'client', clientId);
  }

  clientUsage(clientId: string): string {
    return credentialKey(this.prefix, 'client', clientId, 'used');
  }

  revoked(clientId: string, jti: string): string {
    return credentialKey(this.prefix, 'client', clientId, `revoked:${jti}`);
  }

  /** `jtiHash`: the jti's SHA-256 (base64url), so that the key stays short whatever the jti. */
  usedTokenId(clientId: string, use: OneTimeJwt, jtiHash: string): string {
    return credentialKey(this.prefix, 'client', clientId, `${USED_KEY_NAMES[use]}:${jtiHash}`);
  }

  account(accessId: string): string {
    return credentialKey(this.prefix, 'sa', accessId);
  }

  accountUsage(accessId: string): string {
    return credentialKey(this.prefix, 'sa', accessId, 'used');
  }

  nonce(accessId: string, nonce: string): string {
    return credentialKey(this.prefix, 'sa', accessId, `nonce:${nonce}`);
  }

  /** Marks an Access ID whose create was cancelled by a repair: a late create of it is refused. */
  accountVoid(accessId: string): string {
    return credentialKey(this.prefix, 'sa', accessId, 'void');
  }

  clientVoid(clientId: string): string {
    return credentialKey(this.prefix, 'client', clientId, 'void');
  }

  /** The Access ID of the account with this management id (in the record's slot for ids from account-ids.ts). */
  accountPointer(id: string): string {
    return `${this.prefix}sa-id:{${id}}`;
  }

  accountPointerVoid(id: string): string {
    return `${this.prefix}sa-id:{${id}}:void`;
  }

  get clientIndex(): string {
    return `${this.prefix}index:clients`;
  }

  get accountIndex(): string {
    return `${this.prefix}index:sas`;
  }

  get accessIdsById(): string {
    return `${this.prefix}index:sa-ids`;
  }

  failures(key: string): string {
    return `${this.prefix}fail:{fail}:${key}`;
  }

  meta(name: string): string {
    return `${this.prefix}meta:${name}`;
  }

  /** Pub/sub channels are shared by every database of a server: the key prefix keeps instances apart. */
  metaChannel(name: string): string {
    return `${this.prefix}meta-changed:${name}`;
  }

  /**
   * The prefixes of every key kept in the tracked cache (tracked-cache.ts): what the Bearer path
   * reads (client records, revocation marks, retired keys) and the token endpoint's (client
   * records, failure counters).
   */
  get trackedPrefixes(): string[] {
    return [`${this.prefix}client:`, `${this.prefix}signing-key-retired:`, `${this.prefix}fail:`];
  }

  /** Read with every Bearer request (bearerState); its own slot, hashed over the whole key. */
  retiredSigningKey(kid: string): string {
    return `${this.prefix}signing-key-retired:${kid}`;
  }

  /** When each promoted master was first met (failover-fence.ts); hashed over the whole key. */
  get failoverFences(): string {
    return `${this.prefix}failover-fences`;
  }

  session(id: string): string {
    return `${this.prefix}session:${id}`;
  }

  get layoutVersion(): string {
    return `${this.prefix}layout:version`;
  }

  /** Until when (epoch ms) revocation marks of the old layout (`revoked:<jti>`) may still exist. */
  get legacyRevocationsUntil(): string {
    return `${this.prefix}layout:legacy-revocations-until`;
  }

  /** The old layout's revocation mark, honoured until it expires (it has no client id to move it by). */
  legacyRevoked(jti: string): string {
    return `${this.prefix}revoked:${jti}`;
  }
}
