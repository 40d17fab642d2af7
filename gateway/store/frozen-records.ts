// Records handed out without a copy are frozen, so that no request can change what another one
// (or the store) holds: the embedded store's records, and the service accounts the signed route
// keeps between requests (gateway/pipeline/authenticate/signature/account-cache.ts).
import type { ClientRecord, ServiceAccountRecord } from './types.js';

export function frozenClient(client: ClientRecord): ClientRecord {
  Object.freeze(client.scopes);
  for (const key of Object.freeze(client.jwks)) Object.freeze(Object.freeze(key).jwk);
  return Object.freeze(client);
}

export function frozenAccount(account: ServiceAccountRecord): ServiceAccountRecord {
  Object.freeze(account.permissions);
  Object.freeze(account.allowedIps);
  for (const key of Object.freeze(account.publicKeys)) Object.freeze(key);
  return Object.freeze(account);
}
