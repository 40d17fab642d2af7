// Admin API for service accounts (DESIGN 2.4). The Access ID is returned in full once, in the 201
// answer; everywhere else only its hint (the first 8 characters) is shown.
import type { FastifyInstance } from 'fastify';
import { GatewayError, invalidField } from '../errors.js';
import { actorOf, audit } from '../http/audit.js';
import { maskAccessId } from '../http/logging.js';
import { serviceAccountFromInput, serviceAccountKeyFromInput } from '../service-accounts/account-input.js';
import { serviceAccountKeys } from '../store/service-account-keys.js';
import type { CredentialStore, ServiceAccountRecord } from '../store/types.js';
import { isUuid } from '../uuid.js';
import { pageRequest } from './paging.js';

/** The account as the admin API shows it, without the full Access ID. */
export function publicServiceAccount(account: ServiceAccountRecord) {
  return {
    id: account.id,
    access_id_hint: maskAccessId(account.accessId),
    description: account.description,
    // The first (oldest) key, as before key rotation; public_keys has every key.
    public_key: account.publicKey,
    fingerprint: account.fingerprint,
    public_keys: serviceAccountKeys(account).map((k) => ({ public_key: k.publicKey, fingerprint: k.fingerprint, added_at: k.addedAt })),
    expires_at: account.expiresAt ?? null,
    permissions: account.permissions,
    allowed_ips: account.allowedIps,
    account_id: account.accountId,
    created_at: account.createdAt,
    last_used_at: account.lastUsedAt,
    last_used_ip: account.lastUsedIp,
  };
}

/** What the admin API returns for a service account; the 201 answer adds the full access_id. */
export type ServiceAccountView = ReturnType<typeof publicServiceAccount>;
export type CreatedServiceAccountView = ServiceAccountView & { access_id: string };

const NOT_FOUND = 'No service account with that id.';

export function registerServiceAccountRoutes(app: FastifyInstance, store: CredentialStore): void {
  app.post('/admin/v1/service-accounts', async (request, reply) => {
    const account = serviceAccountFromInput(request.body);
    if (!(await store.createServiceAccount(account))) throw new GatewayError('internal_error', 'service account id collision; try again');
    audit(request.log, 'credential.created', { kind: 'service_account', service_account_id: account.id, access_id: maskAccessId(account.accessId), fingerprint: account.fingerprint, permissions: account.permissions, expires_at: account.expiresAt ?? null, by: actorOf(request) });
    reply.header('cache-control', 'no-store');
    return reply.code(201).send({ ...publicServiceAccount(account), access_id: account.accessId });
  });

  // A page of accounts, or (access_id=...) the one account behind a full Access ID, for support
  // staff; the answer shows only its hint, never the ID that was asked for.
  app.get('/admin/v1/service-accounts', async (request) => {
    const { access_id: accessId, ...page } = pageRequest(request.query, ['access_id']);
    if (accessId !== undefined) {
      if (page.cursor !== undefined) throw invalidField('cursor', 'cannot be combined with access_id');
      if (!isUuid(String(accessId))) throw invalidField('access_id', 'must be a full Access ID (a UUID)');
      const account = await store.findServiceAccountByAccessId(String(accessId));
      return { service_accounts: account ? [publicServiceAccount(account)] : [], next_cursor: null };
    }
    const { items, nextCursor } = await store.listServiceAccounts(page);
    return { service_accounts: items.map(publicServiceAccount), next_cursor: nextCursor };
  });

  app.get<{ Params: { id: string } }>('/admin/v1/service-accounts/:id', async (request) => {
    const account = await store.getServiceAccount(request.params.id);
    if (!account) throw new GatewayError('not_found', NOT_FOUND);
    return publicServiceAccount(account);
  });

  // Key rotation: add the new key (both verify), move the client to it, then remove the old one.
  app.post<{ Params: { id: string } }>('/admin/v1/service-accounts/:id/keys', async (request, reply) => {
    const key = serviceAccountKeyFromInput(request.body);
    const { outcome, account } = await store.addServiceAccountKey(request.params.id, key);
    if (outcome === 'account_not_found' || !account) throw new GatewayError('not_found', NOT_FOUND);
    if (outcome === 'key_exists') throw new GatewayError('service_account_key_exists', `The service account already holds the key ${key.fingerprint}.`, { field: 'public_key' });
    if (outcome === 'key_limit') throw new GatewayError('service_account_key_limit', 'The service account already holds two public keys; remove one (DELETE /admin/v1/service-accounts/{id}/keys/{fingerprint}) before adding another.', { field: 'public_key' });
    audit(request.log, 'credential.key_added', { kind: 'service_account', service_account_id: account.id, access_id: maskAccessId(account.accessId), fingerprint: key.fingerprint, keys: serviceAccountKeys(account).length, by: actorOf(request) });
    reply.header('cache-control', 'no-store');
    return reply.code(201).send(publicServiceAccount(account));
  });

  app.delete<{ Params: { id: string; fingerprint: string } }>('/admin/v1/service-accounts/:id/keys/:fingerprint', async (request) => {
    const { fingerprint } = request.params;
    const { outcome, account } = await store.removeServiceAccountKey(request.params.id, fingerprint);
    if (outcome === 'account_not_found' || !account) throw new GatewayError('not_found', NOT_FOUND);
    if (outcome === 'key_not_found') throw new GatewayError('not_found', 'The service account holds no key with that fingerprint (give it as SHA256:..., URL-encoded).');
    if (outcome === 'last_key') throw new GatewayError('service_account_last_key', `${fingerprint} is the service account's only key; add its replacement first, or delete the account.`);
    audit(request.log, 'credential.key_removed', { kind: 'service_account', service_account_id: account.id, access_id: maskAccessId(account.accessId), fingerprint, keys: serviceAccountKeys(account).length, by: actorOf(request) });
    return publicServiceAccount(account);
  });

  app.delete<{ Params: { id: string } }>('/admin/v1/service-accounts/:id', async (request, reply) => {
    if (!(await store.deleteServiceAccount(request.params.id))) throw new GatewayError('not_found', NOT_FOUND);
    audit(request.log, 'credential.deleted', { kind: 'service_account', service_account_id: request.params.id, by: actorOf(request) });
    return reply.code(204).send();
  });
}
