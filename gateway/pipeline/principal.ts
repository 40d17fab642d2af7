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
}

export type Principal = ClientPrincipal | ServiceAccountPrincipal;
