// Admin API for service accounts (DESIGN 2.4). The Access ID is returned in full once, in the 201
// answer; everywhere else only its hint (the first 8 characters) is shown.
import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../errors.js';
import { maskAccessId } from '../http/logging.js';
import { serviceAccountFromInput } from '../service-accounts/account-input.js';
import type { CredentialStore, ServiceAccountRecord } from '../store/types.js';

/** The account as the admin API shows it, without the full Access ID. */
export function publicServiceAccount(account: ServiceAccountRecord) {
  return {
    id: account.id,
    access_id_hint: maskAccessId(account.accessId),
    description: account.description,
    public_key: account.publicKey,
    fingerprint: account.fingerprint,
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
    request.log.info({ service_account_id: account.id, access_id: maskAccessId(account.accessId) }, 'service account created');
    reply.header('cache-control', 'no-store');
    return reply.code(201).send({ ...publicServiceAccount(account), access_id: account.accessId });
  });

  app.get('/admin/v1/service-accounts', async () => {
    const accounts = await store.listServiceAccounts();
    accounts.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
    return { service_accounts: accounts.map(publicServiceAccount) };
  });

  app.get<{ Params: { id: string } }>('/admin/v1/service-accounts/:id', async (request) => {
    const account = await store.getServiceAccount(request.params.id);
    if (!account) throw new GatewayError('not_found', NOT_FOUND);
    return publicServiceAccount(account);
  });

  app.delete<{ Params: { id: string } }>('/admin/v1/service-accounts/:id', async (request, reply) => {
    if (!(await store.deleteServiceAccount(request.params.id))) throw new GatewayError('not_found', NOT_FOUND);
    request.log.info({ service_account_id: request.params.id }, 'service account deleted');
    return reply.code(204).send();
  });
}
