// Admin API for OAuth clients (DESIGN 2.4). The secret is returned once, at creation (and once
// more for each roll of the secret).
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { GatewayError, invalidField } from '../errors.js';
import { generateClientSecret, type ClientSecretHasher } from '../oauth/client-secrets.js';
import { SCOPES } from '../policy/vocabulary.js';
import type { ClientRecord, CredentialStore } from '../store/types.js';
import { actorOf, audit } from '../http/audit.js';
import { pageRequest } from './paging.js';
import { nameSet, objectBody, optionalAccountId, optionalBoolean, requiredText, type Body } from './validate.js';

/** The client as the admin API shows it: never the secret hash. */
export function publicClient(client: ClientRecord) {
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

/** What the admin API returns for a client; the 201 answer adds the client_secret. */
export type ClientView = ReturnType<typeof publicClient>;
export type CreatedClientView = ClientView & { client_secret: string };
/** The answer to a secret roll: the new secret (shown only then) and when the replaced one stops working. */
export type RolledSecretView = ClientView & { client_secret: string; previous_secret_expires_at: string | null };

/** The longest grace period of a secret roll: 7 days. */
export const MAX_SECRET_GRACE_SECONDS = 604_800;

function graceSeconds(body: Body): number {
  const value = body.grace_seconds;
  if (value === undefined) return 0;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_SECRET_GRACE_SECONDS) {
    throw invalidField('grace_seconds', `must be a whole number of seconds from 0 to ${MAX_SECRET_GRACE_SECONDS} (7 days)`);
  }
  return value;
}

export function registerClientRoutes(app: FastifyInstance, store: CredentialStore, hasher: ClientSecretHasher): void {
  app.post('/admin/v1/clients', async (request, reply) => {
    const body = objectBody(request.body, ['name', 'scopes', 'account_id', 'resource_server']);
    const secret = generateClientSecret();
    const client: ClientRecord = {
      clientId: randomUUID(),
      name: requiredText(body, 'name', 200),
      scopes: nameSet(body, 'scopes', SCOPES),
      accountId: optionalAccountId(body),
      resourceServer: optionalBoolean(body, 'resource_server', false),
      // Re-reads the shared key first: a client is never stored under a key the store lost.
      secretHash: await hasher.hashForStorage(secret),
      createdAt: new Date().toISOString(),
    };
    if (!(await store.createClient(client))) throw new GatewayError('internal_error', 'client id collision; try again');
    reply.header('cache-control', 'no-store');
    audit(request.log, 'credential.created', { kind: 'oauth_client', client_id: client.clientId, scopes: client.scopes, resource_server: client.resourceServer ?? false, by: actorOf(request) });
    return reply.code(201).send({ ...publicClient(client), client_secret: secret });
  });

  app.get('/admin/v1/clients', async (request) => {
    const { items, nextCursor } = await store.listClients(pageRequest(request.query));
    return { clients: items.map(publicClient), next_cursor: nextCursor };
  });

  app.get<{ Params: { clientId: string } }>('/admin/v1/clients/:clientId', async (request) => {
    const client = await store.getClient(request.params.clientId);
    if (!client) throw new GatewayError('not_found', 'No client with that client_id.');
    return publicClient(client);
  });

  app.post<{ Params: { clientId: string } }>('/admin/v1/clients/:clientId/secret', async (request, reply) => {
    // The body may be left out: no grace period.
    const body = objectBody(request.body ?? {}, ['grace_seconds']);
    const grace = graceSeconds(body);
    const secret = generateClientSecret();
    const client = await store.rollClientSecret(request.params.clientId, await hasher.hashForStorage(secret), grace);
    if (!client) throw new GatewayError('not_found', 'No client with that client_id.');
    const previousExpiresAt = client.previousSecretExpiresAt ?? null;
    reply.header('cache-control', 'no-store');
    audit(request.log, 'credential.rotated', { kind: 'oauth_client', client_id: client.clientId, grace_seconds: grace, previous_secret_expires_at: previousExpiresAt, by: actorOf(request) });
    const view: RolledSecretView = { ...publicClient(client), client_secret: secret, previous_secret_expires_at: previousExpiresAt };
    return reply.code(200).send(view);
  });

  app.delete<{ Params: { clientId: string } }>('/admin/v1/clients/:clientId', async (request, reply) => {
    if (!(await store.deleteClient(request.params.clientId))) throw new GatewayError('not_found', 'No client with that client_id.');
    audit(request.log, 'credential.deleted', { kind: 'oauth_client', client_id: request.params.clientId, by: actorOf(request) });
    return reply.code(204).send();
  });
}
