// Who a request is from, as stage 2 proved it.
import type { ServiceAccountRecord } from '../store/types.js';

export interface ClientPrincipal {
  readonly kind: 'client';
  readonly clientId: string;
  readonly accountId: string | null;
  readonly scopes: readonly string[];
  /** The thumbprint of the key a DPoP-bound token is bound to, proven by this request's proof. */
  readonly jkt?: string;
}

export interface ServiceAccountPrincipal {
  readonly kind: 'service-account';
  readonly account: ServiceAccountRecord;
  /** The fingerprint of the account's key that verified the signature (its last use is recorded). */
  readonly fingerprint: string;
}

export type Principal = ClientPrincipal | ServiceAccountPrincipal;
