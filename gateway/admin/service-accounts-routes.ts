// Admin API for service accounts. The Access ID is returned in full once, in the 201
// answer; everywhere else only its hint (the first 8 characters) is shown. Bodies and queries are
// checked by the route schemas; what a schema cannot say, by service-account-input.ts.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { GatewayError, invalidField } from '../errors.js';
import { actorOf, audit } from '../http/audit.js';
import { maskAccessId } from '../http/logging.js';
import { serviceAccountChangeFromInput, serviceAccountFromInput, serviceAccountKeyFromInput } from './service-account-input.js';
import { serviceAccountKeys } from '../store/service-account-keys.js';
import type { CredentialStore, ServiceAccountRecord } from '../store/types.js';
import { ADMIN_SECURITY } from './api-document.js';
import { pageRequest } from './paging.js';
import { adminErrors, usual } from './schemas/error-body.js';
import { ServiceAccountAccessIdQuerySchema, ServiceAccountListQuerySchema } from './schemas/paging.js';
import { described } from '../http/schema-helpers.js';
import type { Vocabulary } from '../policy/vocabulary.js';
import { vocabularyBodyValidator } from './vocabulary-body.js';
import {
  CreatedServiceAccountSchema,
  serviceAccountInputSchema,
  ServiceAccountInputSchema,
  ServiceAccountKeyInputSchema,
  ServiceAccountKeyParamsSchema,
  ServiceAccountListSchema,
  ServiceAccountParamsSchema,
  ServiceAccountSchema,
  serviceAccountUpdateSchema,
  ServiceAccountUpdateSchema,
  type ServiceAccountView,
} from './schemas/service-accounts.js';

export type { CreatedServiceAccountView, ServiceAccountView } from './schemas/service-accounts.js';

/** The account as the admin API shows it, without the full Access ID. */
export function publicServiceAccount(account: ServiceAccountRecord): ServiceAccountView {
  return {
    id: account.id,
    access_id_hint: maskAccessId(account.accessId),
    description: account.description,
    // The first (oldest) key, as before key rotation; public_keys has every key.
    public_key: account.publicKey,
    fingerprint: account.fingerprint,
    public_keys: serviceAccountKeys(account).map((k) => ({
      public_key: k.publicKey,
      fingerprint: k.fingerprint,
      added_at: k.addedAt,
      last_used_at: k.lastUsedAt ?? null,
    })),
    expires_at: account.expiresAt ?? null,
    permissions: account.permissions,
    allowed_ips: account.allowedIps,
    account_id: account.accountId,
    created_at: account.createdAt,
    last_used_at: account.lastUsedAt,
    last_used_ip: account.lastUsedIp,
  };
}

const NOT_FOUND = 'No service account with that id.';
const TAGS = ['Service accounts'];
const KEY_CONFLICTS = 'service_account_key_limit: the account already holds two keys; service_account_key_exists: it already holds this key.';

/** `vocabulary`: the policy's, in force now; an account may be granted only the permissions it declares. */
export function registerServiceAccountRoutes(parent: FastifyInstance, store: CredentialStore, vocabulary: () => Vocabulary): void {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/admin/v1/service-accounts',
    {
      schema: {
        summary: 'Create a service account. The full access_id is in this answer only.',
        tags: TAGS,
        security: ADMIN_SECURITY,
        body: ServiceAccountInputSchema,
        response: { 201: described(CreatedServiceAccountSchema, 'Created. Cache-Control: no-store.'), ...adminErrors({ 400: usual(400) }) },
      },
      validatorCompiler: vocabularyBodyValidator((v) => serviceAccountInputSchema([...v.permissions.keys()]), vocabulary),
    },
    async (request, reply) => {
      const account = serviceAccountFromInput(request.body);
      if (!(await store.createServiceAccount(account))) throw new GatewayError('internal_error', 'service account id collision; try again');
      audit(request.log, 'credential.created', {
        kind: 'service_account',
        service_account_id: account.id,
        access_id: maskAccessId(account.accessId),
        fingerprint: account.fingerprint,
        permissions: account.permissions,
        expires_at: account.expiresAt ?? null,
        by: actorOf(request),
      });
      reply.header('cache-control', 'no-store');
      return reply.code(201).send({ ...publicServiceAccount(account), access_id: account.accessId });
    },
  );

  // A page of accounts, or (access_id=...) the one account behind a full Access ID, for support
  // staff; the answer shows only its hint, never the ID that was asked for.
  app.get(
    '/admin/v1/service-accounts',
    {
      schema: {
        summary: 'List service accounts (Access ID partly hidden), newest first, a page at a time; or find one by its full Access ID.',
        tags: TAGS,
        security: ADMIN_SECURITY,
        querystring: ServiceAccountListQuerySchema,
        response: { 200: described(ServiceAccountListSchema, 'A page of service accounts.'), ...adminErrors({ 400: usual(400) }) },
      },
    },
    async (request) => {
      const { access_id: accessId, ...query } = request.query;
      if (accessId !== undefined) {
        if (query.cursor !== undefined) throw invalidField('cursor', 'cannot be combined with access_id');
        const account = await store.findServiceAccountByAccessId(accessId);
        return { service_accounts: account ? [publicServiceAccount(account)] : [], next_cursor: null };
      }
      const { items, nextCursor } = await store.listServiceAccounts(pageRequest(query));
      return { service_accounts: items.map(publicServiceAccount), next_cursor: nextCursor };
    },
  );

  app.get(
    '/admin/v1/service-accounts/:id',
    {
      schema: {
        summary: 'Show a service account.',
        tags: TAGS,
        security: ADMIN_SECURITY,
        params: ServiceAccountParamsSchema,
        response: { 200: described(ServiceAccountSchema, 'The service account.'), ...adminErrors({ 404: usual(404) }) },
      },
    },
    async (request) => {
      const account = await store.getServiceAccount(request.params.id);
      if (!account) throw new GatewayError('not_found', NOT_FOUND);
      return publicServiceAccount(account);
    },
  );

  // What an account may do changes without a new Access ID: effective on every instance at once (the
  // record's version changes, so the next request on any instance is checked against the new values).
  app.patch(
    '/admin/v1/service-accounts/:id',
    {
      schema: {
        summary: 'Change a service account: its description, permissions, allowed addresses or expiry (null clears it).',
        description: 'The Access ID and the keys stay. The next request on every instance is checked against the new values.',
        tags: TAGS,
        security: ADMIN_SECURITY,
        params: ServiceAccountParamsSchema,
        body: ServiceAccountUpdateSchema,
        response: { 200: described(ServiceAccountSchema, 'The account as changed.'), ...adminErrors({ 400: usual(400), 404: usual(404) }) },
      },
      validatorCompiler: vocabularyBodyValidator((v) => serviceAccountUpdateSchema([...v.permissions.keys()]), vocabulary),
    },
    async (request) => {
      const change = serviceAccountChangeFromInput(request.body);
      const account = await store.updateServiceAccount(request.params.id, change);
      if (!account) throw new GatewayError('not_found', NOT_FOUND);
      audit(request.log, 'credential.updated', {
        kind: 'service_account',
        service_account_id: account.id,
        changed: Object.keys(request.body),
        permissions: account.permissions,
        allowed_ips: account.allowedIps,
        expires_at: account.expiresAt ?? null,
        by: actorOf(request),
      });
      return publicServiceAccount(account);
    },
  );

  // Key rotation: add the new key (both verify), move the client to it, then remove the old one.
  app.post(
    '/admin/v1/service-accounts/:id/keys',
    {
      schema: {
        summary: 'Add a second public key (key rotation).',
        description: 'The Access ID is unchanged; while both keys are held, a signature by either verifies. An account holds at most two keys.',
        tags: TAGS,
        security: ADMIN_SECURITY,
        params: ServiceAccountParamsSchema,
        body: ServiceAccountKeyInputSchema,
        response: {
          201: described(ServiceAccountSchema, 'Added: the account with both keys.'),
          ...adminErrors({ 400: usual(400), 404: usual(404), 409: KEY_CONFLICTS }),
        },
      },
    },
    async (request, reply) => {
      const key = serviceAccountKeyFromInput(request.body);
      const { outcome, account } = await store.addServiceAccountKey(request.params.id, key);
      if (outcome === 'account_not_found' || !account) throw new GatewayError('not_found', NOT_FOUND);
      if (outcome === 'key_exists')
        throw new GatewayError('service_account_key_exists', `The service account already holds the key ${key.fingerprint}.`, { field: 'public_key' });
      if (outcome === 'key_limit')
        throw new GatewayError(
          'service_account_key_limit',
          'The service account already holds two public keys; remove one (DELETE /admin/v1/service-accounts/{id}/keys/{fingerprint}) before adding another.',
          { field: 'public_key' },
        );
      audit(request.log, 'credential.key_added', {
        kind: 'service_account',
        service_account_id: account.id,
        access_id: maskAccessId(account.accessId),
        fingerprint: key.fingerprint,
        keys: serviceAccountKeys(account).length,
        by: actorOf(request),
      });
      reply.header('cache-control', 'no-store');
      return reply.code(201).send(publicServiceAccount(account));
    },
  );

  app.delete(
    '/admin/v1/service-accounts/:id/keys/:fingerprint',
    {
      schema: {
        summary: 'Remove one key; signatures by it fail at once (401 signature_invalid). The last key cannot be removed.',
        tags: TAGS,
        security: ADMIN_SECURITY,
        params: ServiceAccountKeyParamsSchema,
        response: {
          200: described(ServiceAccountSchema, 'Removed: the account with its remaining key.'),
          ...adminErrors({
            404: 'not_found: no such account, or it holds no key with that fingerprint.',
            409: "service_account_last_key: the account's only key.",
          }),
        },
      },
    },
    async (request) => {
      const { fingerprint } = request.params;
      const { outcome, account } = await store.removeServiceAccountKey(request.params.id, fingerprint);
      if (outcome === 'account_not_found' || !account) throw new GatewayError('not_found', NOT_FOUND);
      if (outcome === 'key_not_found')
        throw new GatewayError('not_found', 'The service account holds no key with that fingerprint (give it as SHA256:..., URL-encoded).');
      if (outcome === 'last_key')
        throw new GatewayError(
          'service_account_last_key',
          `${fingerprint} is the service account's only key; add its replacement first, or delete the account.`,
        );
      audit(request.log, 'credential.key_removed', {
        kind: 'service_account',
        service_account_id: account.id,
        access_id: maskAccessId(account.accessId),
        fingerprint,
        keys: serviceAccountKeys(account).length,
        by: actorOf(request),
      });
      return publicServiceAccount(account);
    },
  );

  app.delete(
    '/admin/v1/service-accounts/:id',
    {
      schema: {
        summary: 'Delete a service account: every later request with its Access ID gets 401, on every instance.',
        tags: TAGS,
        security: ADMIN_SECURITY,
        params: ServiceAccountParamsSchema,
        response: { 204: Type.Null({ description: 'Deleted.' }), ...adminErrors({ 404: usual(404) }) },
      },
    },
    async (request, reply) => {
      if (!(await store.deleteServiceAccount(request.params.id))) throw new GatewayError('not_found', NOT_FOUND);
      audit(request.log, 'credential.deleted', { kind: 'service_account', service_account_id: request.params.id, by: actorOf(request) });
      return reply.code(204).send(null);
    },
  );

  // By the Access ID a caller sends: the record itself names the account, so this works whatever
  // happened to the list index and the id lookup (a failover, an unfinished create).
  app.delete(
    '/admin/v1/service-accounts',
    {
      schema: {
        summary: 'Delete the service account behind a full Access ID: every later request with it gets 401, on every instance.',
        description:
          'Finds the account by its record alone, without the list index or the id lookup, so an account that is not listed can still be removed. The answer does not echo the Access ID. Audited as credential.deleted.',
        tags: TAGS,
        security: ADMIN_SECURITY,
        querystring: ServiceAccountAccessIdQuerySchema,
        response: {
          204: Type.Null({ description: 'Deleted.' }),
          ...adminErrors({ 400: usual(400), 404: 'not_found: no service account has that Access ID.' }),
        },
      },
    },
    async (request, reply) => {
      const { access_id: accessId } = request.query;
      const id = await store.deleteServiceAccountByAccessId(accessId);
      if (id === null) throw new GatewayError('not_found', 'No service account has that Access ID.');
      audit(request.log, 'credential.deleted', { kind: 'service_account', service_account_id: id, access_id: maskAccessId(accessId), by: actorOf(request) });
      return reply.code(204).send(null);
    },
  );
}
