// The credential store contract: small ports, one concern each (ports/), and CredentialStore, the
// store that offers them all. Two implementations: Redis (shared by every gateway instance) and the
// embedded single-process store. Both pass the same contract tests (test/store/).
// Methods on the proxied hot path are one round trip each: bearerState; serviceAccountForRequest
// (read-only, before the signature is verified; skipped while the gateway holds the account's
// current version) and consumeNonce (the one write, after it, which also confirms that version);
// and takeRateLimit, only on routes with a rate limit.
import type { ClientStore } from './ports/clients.js';
import type { CounterStore } from './ports/counters.js';
import type { StoreLifecycle } from './ports/lifecycle.js';
import type { ServiceAccountStore } from './ports/service-accounts.js';
import type { SessionStore } from './ports/sessions.js';
import type { SharedValues } from './ports/shared-values.js';

export type { BearerState, ClientAuthMethod, ClientChange, ClientKey, ClientRecord, ClientStore, ClientUse, OneTimeJwt } from './ports/clients.js';
export { CLIENT_AUTH_METHODS } from './ports/clients.js';
export type { AttemptLimit, AttemptReservation, CounterStore } from './ports/counters.js';
export type { CredentialCounts, PersistenceReport, RepairOptions, RepairReport, StoreLifecycle } from './ports/lifecycle.js';
export type { Page, PageRequest } from './ports/paging.js';
export {
  MAX_SERVICE_ACCOUNT_KEYS,
  type KeyAddOutcome,
  type KeyChange,
  type KeyRemoveOutcome,
  type NonceConsumption,
  type ServiceAccountChange,
  type ServiceAccountKey,
  type ServiceAccountRecord,
  type ServiceAccountStore,
  type ServiceAccountUse,
  type SignedRequestState,
} from './ports/service-accounts.js';
export type { SessionStore } from './ports/sessions.js';
export type { SharedValues } from './ports/shared-values.js';

/** Every port in one store: what the gateway opens (open-store.ts) and hands to each of its parts. */
export interface CredentialStore extends StoreLifecycle, ClientStore, ServiceAccountStore, SharedValues, CounterStore, SessionStore {}

export { StoreUnavailableError } from './store-unavailable-error.js';
