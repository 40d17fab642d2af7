// Admin API for OAuth clients. The secret is returned once, at creation (and once
// more for each roll of the secret). Bodies and queries are checked by the route schemas.
import { randomUUID } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { GatewayError } from '../errors.js';
import { actorOf, audit } from '../http/audit.js';
import { generateClientSecret, type ClientSecretHasher } from '../oauth/client-secrets.js';
import type { ClientRecord, CredentialStore } from '../store/types.js';
import { ADMIN_SECURITY } from './api-document.js';
import { pageRequest } from './paging.js';
import type { Vocabulary } from '../policy/vocabulary.js';
import {
  clientInputSchema,
  ClientInputSchema,
  ClientListSchema,
  ClientParamsSchema,
  ClientSchema,
  CreatedClientSchema,
  RolledSecretSchema,
  SecretRollInputSchema,
  type ClientView,
  type RolledSecretView,
} from './schemas/clients.js';
import { adminErrors, usual } from './schemas/error-body.js';
import { PageQuerySchema } from './schemas/paging.js';
import { described } from '../http/schema-helpers.js';
import { vocabularyBodyValidator } from './vocabulary-body.js';

export type { ClientView, CreatedClientView, RolledSecretView } from './schemas/clients.js';

/** The client as the admin API shows it: never the secret hash. */
export function publicClient(client: ClientRecord): ClientView {
  return {
    client_id: client.clientId,
    name: client.name,
    scopes: client.scopes,
    account_id: client.accountId,
    // Records stored before the attribute existed have none: they are not resource servers.
    resource_server: client.resourceServer === true,
    created_at: client.createdAt,
  };
}

const NOT_FOUND = 'No client with that client_id.';
const TAGS = ['OAuth clients'];

/** `vocabulary`: the policy's, in force now; a client may be granted only the scopes it declares. */
export function registerClientRoutes(parent: FastifyInstance, store: CredentialStore, hasher: ClientSecretHasher, vocabulary: () => Vocabulary): void {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/admin/v1/clients',
    {
      schema: {
        summary: 'Create an OAuth client. The client_secret is in this answer only.',
        tags: TAGS,
        security: ADMIN_SECURITY,
        body: ClientInputSchema,
        response: { 201: described(CreatedClientSchema, 'Created. Cache-Control: no-store.'), ...adminErrors({ 400: usual(400) }) },
      },
      validatorCompiler: vocabularyBodyValidator((v) => clientInputSchema([...v.scopes.keys()]), vocabulary),
    },
    async (request, reply) => {
      const body = request.body;
      const secret = generateClientSecret();
      const client: ClientRecord = {
        clientId: randomUUID(),
        name: body.name.trim(),
        scopes: [...new Set(body.scopes)],
        accountId: body.account_id ?? null,
        resourceServer: body.resource_server ?? false,
        // Re-reads the shared key first: a client is never stored under a key the store lost.
        secretHash: await hasher.hashForStorage(secret),
        createdAt: new Date().toISOString(),
      };
      if (!(await store.createClient(client))) throw new GatewayError('internal_error', 'client id collision; try again');
      reply.header('cache-control', 'no-store');
      audit(request.log, 'credential.created', {
        kind: 'oauth_client',
        client_id: client.clientId,
        scopes: client.scopes,
        resource_server: client.resourceServer ?? false,
        by: actorOf(request),
      });
      return reply.code(201).send({ ...publicClient(client), client_secret: secret });
    },
  );

  app.get(
    '/admin/v1/clients',
    {
      schema: {
        summary: 'List OAuth clients, a page at a time.',
        tags: TAGS,
        security: ADMIN_SECURITY,
        querystring: PageQuerySchema,
        response: { 200: described(ClientListSchema, 'A page of clients.'), ...adminErrors({ 400: usual(400) }) },
      },
    },
    async (request) => {
      const { items, nextCursor } = await store.listClients(pageRequest(request.query));
      return { clients: items.map(publicClient), next_cursor: nextCursor };
    },
  );

  app.get(
    '/admin/v1/clients/:client_id',
    {
      schema: {
        summary: 'Show a client.',
        tags: TAGS,
        security: ADMIN_SECURITY,
        params: ClientParamsSchema,
        response: { 200: described(ClientSchema, 'The client.'), ...adminErrors({ 404: usual(404) }) },
      },
    },
    async (request) => {
      const client = await store.getClient(request.params.client_id);
      if (!client) throw new GatewayError('not_found', NOT_FOUND);
      return publicClient(client);
    },
  );

  app.post(
    '/admin/v1/clients/:client_id/secret',
    {
      schema: {
        summary: 'Roll the client secret.',
        description:
          'The new client_secret is in this answer only and works at once. The replaced secret keeps working for grace_seconds (0: refused at once), then only the new one does; rolling again during a grace period drops the older secret, so at most two secrets work at once. Tokens already issued stay valid. Audited as credential.rotated.',
        tags: TAGS,
        security: ADMIN_SECURITY,
        params: ClientParamsSchema,
        body: SecretRollInputSchema,
        response: { 200: described(RolledSecretSchema, 'Rolled. Cache-Control: no-store.'), ...adminErrors({ 400: usual(400), 404: usual(404) }) },
      },
    },
    async (request, reply) => {
      const grace = request.body?.grace_seconds ?? 0;
      const secret = generateClientSecret();
      const client = await store.rollClientSecret(request.params.client_id, await hasher.hashForStorage(secret), grace);
      if (!client) throw new GatewayError('not_found', NOT_FOUND);
      const previousExpiresAt = client.previousSecretExpiresAt ?? null;
      reply.header('cache-control', 'no-store');
      audit(request.log, 'credential.rotated', {
        kind: 'oauth_client',
        client_id: client.clientId,
        grace_seconds: grace,
        previous_secret_expires_at: previousExpiresAt,
        by: actorOf(request),
      });
      const view: RolledSecretView = { ...publicClient(client), client_secret: secret, previous_secret_expires_at: previousExpiresAt };
      return reply.code(200).send(view);
    },
  );

  app.delete(
    '/admin/v1/clients/:client_id',
    {
      schema: {
        summary: 'Delete a client; its tokens fail at once.',
        tags: TAGS,
        security: ADMIN_SECURITY,
        params: ClientParamsSchema,
        response: { 204: Type.Null({ description: 'Deleted.' }), ...adminErrors({ 404: usual(404) }) },
      },
    },
    async (request, reply) => {
      if (!(await store.deleteClient(request.params.client_id))) throw new GatewayError('not_found', NOT_FOUND);
      audit(request.log, 'credential.deleted', { kind: 'oauth_client', client_id: request.params.client_id, by: actorOf(request) });
      return reply.code(204).send(null);
    },
  );
}
