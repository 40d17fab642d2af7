// Admin API for OAuth clients. The secret is returned once, at creation (and once
// more for each roll of the secret); a private_key_jwt client has none, but public keys, rotated
// as a service account's are. Bodies and queries are checked by the route schemas.
import { randomUUID } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { OAuthProfile } from '../config/settings.js';
import { GatewayError, invalidField } from '../errors.js';
import { actorOf, audit } from '../http/audit.js';
import { generateClientSecret, type ClientSecretHasher } from '../oauth/client-secrets.js';
import { MAX_CLIENT_KEYS } from '../oauth/client-jwks.js';
import type { ClientAuthMethod, ClientKey, ClientRecord, CredentialStore } from '../store/types.js';
import { clientKeyFromInput, clientKeysFromInput, holdsKey } from './client-keys-input.js';
import { ADMIN_SECURITY } from './api-document.js';
import { pageRequest } from './paging.js';
import type { Vocabulary } from '../policy/vocabulary.js';
import {
  clientInputSchema,
  ClientInputSchema,
  ClientKeyInputSchema,
  ClientKeyParamsSchema,
  ClientListSchema,
  ClientParamsSchema,
  ClientSchema,
  ClientWithUseSchema,
  CreatedClientSchema,
  type ClientWithUseView,
  RolledSecretSchema,
  SecretRollInputSchema,
  clientUpdateSchema,
  ClientUpdateSchema,
  type ClientInput,
  type ClientView,
  type RolledSecretView,
} from './schemas/clients.js';
import { adminErrors, usual } from './schemas/error-body.js';
import { PageQuerySchema } from './schemas/paging.js';
import { described } from '../http/schema-helpers.js';
import { vocabularyBodyValidator } from './vocabulary-body.js';

export type { ClientView, ClientWithUseView, CreatedClientView, RolledSecretView } from './schemas/clients.js';

/** The client as the admin API shows it: never the secret hash. */
export function publicClient(client: ClientRecord): ClientView {
  return {
    client_id: client.clientId,
    name: client.name,
    scopes: client.scopes,
    account_id: client.accountId,
    // Records stored before the attribute existed have none: they are not resource servers.
    resource_server: client.resourceServer === true,
    token_endpoint_auth_method: client.tokenEndpointAuthMethod,
    jwks: client.tokenEndpointAuthMethod === 'private_key_jwt' ? { keys: client.jwks.map((key) => ({ ...key.jwk })) } : null,
    dpop_bound_access_tokens: client.dpopBoundAccessTokens,
    created_at: client.createdAt,
  };
}

/** A key change refused inside the store's atomic step: the record is left as it was. */
function keysOfKeyClient(client: ClientRecord): ClientKey[] {
  if (client.tokenEndpointAuthMethod !== 'private_key_jwt')
    throw new GatewayError('client_method_mismatch', `This client authenticates with ${client.tokenEndpointAuthMethod}: it has a secret, not keys.`);
  return client.jwks;
}

const NOT_FOUND = 'No client with that client_id.';
const TAGS = ['OAuth clients'];

/** Under the fapi2 profile a new client is key-bound and DPoP-bound, as FAPI 2.0 asks; anything else is refused naming the field. */
function clientShapeUnder(profile: OAuthProfile, body: ClientInput): { method: ClientAuthMethod; dpopBound: boolean } {
  if (profile !== 'fapi2') return { method: body.token_endpoint_auth_method ?? 'client_secret_basic', dpopBound: body.dpop_bound_access_tokens ?? false };
  if (body.token_endpoint_auth_method !== undefined && body.token_endpoint_auth_method !== 'private_key_jwt')
    throw invalidField('token_endpoint_auth_method', 'must be private_key_jwt under oauth_profile fapi2: FAPI 2.0 accepts no shared secret');
  if (body.dpop_bound_access_tokens === false)
    throw invalidField('dpop_bound_access_tokens', 'must be true under oauth_profile fapi2: FAPI 2.0 sender-constrains every token');
  return { method: 'private_key_jwt', dpopBound: true };
}

/** `vocabulary`: the policy's, in force now; a client may be granted only the scopes it declares. */
export function registerClientRoutes(
  parent: FastifyInstance,
  store: CredentialStore,
  hasher: ClientSecretHasher,
  vocabulary: () => Vocabulary,
  profile: OAuthProfile,
): void {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  /** The clients as shown and listed: with their last uses, read in one step. */
  const withLastUses = async (clients: ClientRecord[]): Promise<ClientWithUseView[]> => {
    const lastUses = await store.clientLastUses(clients.map((client) => client.clientId));
    return clients.map((client, i) => ({ ...publicClient(client), last_used_at: lastUses[i] ?? null }));
  };

  app.post(
    '/admin/v1/clients',
    {
      schema: {
        summary: 'Create an OAuth client. The client_secret is in this answer only; a private_key_jwt client gets none.',
        tags: TAGS,
        security: ADMIN_SECURITY,
        body: ClientInputSchema,
        response: { 201: described(CreatedClientSchema, 'Created. Cache-Control: no-store.'), ...adminErrors({ 400: usual(400) }) },
      },
      validatorCompiler: vocabularyBodyValidator((v) => clientInputSchema([...v.scopes.keys()]), vocabulary),
    },
    async (request, reply) => {
      const body = request.body;
      const { method, dpopBound } = clientShapeUnder(profile, body);
      const createdAt = new Date().toISOString();
      const jwks = clientKeysFromInput(method, body.jwks, createdAt);
      const secret = method === 'private_key_jwt' ? undefined : generateClientSecret();
      const client: ClientRecord = {
        clientId: randomUUID(),
        name: body.name.trim(),
        scopes: [...new Set(body.scopes)],
        accountId: body.account_id ?? null,
        resourceServer: body.resource_server ?? false,
        // Re-reads the shared key first: a client is never stored under a key the store lost.
        secretHash: secret === undefined ? null : await hasher.hashForStorage(secret),
        tokenEndpointAuthMethod: method,
        jwks,
        dpopBoundAccessTokens: dpopBound,
        createdAt,
      };
      if (!(await store.createClient(client))) throw new GatewayError('internal_error', 'client id collision; try again');
      reply.header('cache-control', 'no-store');
      audit(request.log, 'credential.created', {
        kind: 'oauth_client',
        client_id: client.clientId,
        scopes: client.scopes,
        resource_server: client.resourceServer ?? false,
        token_endpoint_auth_method: method,
        dpop_bound_access_tokens: client.dpopBoundAccessTokens,
        kids: jwks.map((key) => key.kid),
        by: actorOf(request),
      });
      return reply.code(201).send({ ...publicClient(client), ...(secret === undefined ? {} : { client_secret: secret }) });
    },
  );

  app.get(
    '/admin/v1/clients',
    {
      schema: {
        summary: 'List OAuth clients, newest first, a page at a time.',
        tags: TAGS,
        security: ADMIN_SECURITY,
        querystring: PageQuerySchema,
        response: { 200: described(ClientListSchema, 'A page of clients.'), ...adminErrors({ 400: usual(400) }) },
      },
    },
    async (request) => {
      const { items, nextCursor } = await store.listClients(pageRequest(request.query));
      return { clients: await withLastUses(items), next_cursor: nextCursor };
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
        response: { 200: described(ClientWithUseSchema, 'The client.'), ...adminErrors({ 404: usual(404) }) },
      },
    },
    async (request) => {
      const client = await store.getClient(request.params.client_id);
      if (!client) throw new GatewayError('not_found', NOT_FOUND);
      return (await withLastUses([client]))[0]!;
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
        response: {
          200: described(RolledSecretSchema, 'Rolled. Cache-Control: no-store.'),
          ...adminErrors({ 400: usual(400), 404: usual(404), 409: 'client_method_mismatch: a private_key_jwt client has no secret.' }),
        },
      },
    },
    async (request, reply) => {
      const grace = request.body?.grace_seconds ?? 0;
      const current = await store.getClient(request.params.client_id);
      if (!current) throw new GatewayError('not_found', NOT_FOUND);
      // The method never changes, so this read cannot be outdated by the roll below.
      if (current.tokenEndpointAuthMethod === 'private_key_jwt')
        throw new GatewayError('client_method_mismatch', 'This client authenticates with private_key_jwt: it has keys, not a secret.');
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

  // Scopes change without a new client: a token issued before carries its scopes, but counts only
  // those the client still holds (the Bearer stage reads the client on every request).
  app.patch(
    '/admin/v1/clients/:client_id',
    {
      schema: {
        summary: 'Change a client: its name or scopes.',
        description: "A scope removed stops working at once on every instance, also in tokens already issued; a scope added is in the client's next token.",
        tags: TAGS,
        security: ADMIN_SECURITY,
        params: ClientParamsSchema,
        body: ClientUpdateSchema,
        response: { 200: described(ClientSchema, 'The client as changed.'), ...adminErrors({ 400: usual(400), 404: usual(404) }) },
      },
      validatorCompiler: vocabularyBodyValidator((v) => clientUpdateSchema([...v.scopes.keys()]), vocabulary),
    },
    async (request) => {
      const { name, scopes } = request.body;
      const client = await store.updateClient(request.params.client_id, () => ({
        ...(name === undefined ? {} : { name: name.trim() }),
        ...(scopes === undefined ? {} : { scopes: [...new Set(scopes)] }),
      }));
      if (!client) throw new GatewayError('not_found', NOT_FOUND);
      audit(request.log, 'credential.updated', {
        kind: 'oauth_client',
        client_id: client.clientId,
        changed: Object.keys(request.body),
        scopes: client.scopes,
        by: actorOf(request),
      });
      return publicClient(client);
    },
  );

  // Key rotation: add the new key (both verify), move the client to it, then remove the old one.
  app.post(
    '/admin/v1/clients/:client_id/keys',
    {
      schema: {
        summary: 'Add a second public key to a private_key_jwt client (key rotation).',
        description: `While both keys are held, an assertion signed by either verifies. A client holds at most ${MAX_CLIENT_KEYS} keys.`,
        tags: TAGS,
        security: ADMIN_SECURITY,
        params: ClientParamsSchema,
        body: ClientKeyInputSchema,
        response: {
          201: described(ClientSchema, 'Added: the client with both keys.'),
          ...adminErrors({
            400: usual(400),
            404: usual(404),
            409: 'client_key_limit: the client already holds two keys; client_key_exists: it already holds this key or kid; client_method_mismatch: a secret client.',
          }),
        },
      },
    },
    async (request, reply) => {
      const key = clientKeyFromInput(request.body.jwk, new Date().toISOString());
      const client = await store.updateClient(request.params.client_id, (current) => {
        const keys = keysOfKeyClient(current);
        if (holdsKey(keys, key))
          throw new GatewayError('client_key_exists', `The client already holds this key, or a key with the kid ${key.kid}.`, { field: 'jwk' });
        if (keys.length >= MAX_CLIENT_KEYS)
          throw new GatewayError(
            'client_key_limit',
            'The client already holds two public keys; remove one (DELETE /admin/v1/clients/{client_id}/keys/{kid}) before adding another.',
            { field: 'jwk' },
          );
        return { jwks: [...keys, key] };
      });
      if (!client) throw new GatewayError('not_found', NOT_FOUND);
      audit(request.log, 'credential.key_added', {
        kind: 'oauth_client',
        client_id: client.clientId,
        kid: key.kid,
        keys: client.jwks.length,
        by: actorOf(request),
      });
      return reply.code(201).send(publicClient(client));
    },
  );

  app.delete(
    '/admin/v1/clients/:client_id/keys/:kid',
    {
      schema: {
        summary: 'Remove one key of a private_key_jwt client; assertions signed by it fail at once. The last key cannot be removed.',
        tags: TAGS,
        security: ADMIN_SECURITY,
        params: ClientKeyParamsSchema,
        response: {
          200: described(ClientSchema, 'Removed: the client with its remaining key.'),
          ...adminErrors({
            404: 'not_found: no such client, or it holds no key with that kid.',
            409: "client_last_key: the client's only key; client_method_mismatch: a secret client.",
          }),
        },
      },
    },
    async (request) => {
      const { kid } = request.params;
      const client = await store.updateClient(request.params.client_id, (current) => {
        const keys = keysOfKeyClient(current);
        const remaining = keys.filter((key) => key.kid !== kid);
        if (remaining.length === keys.length) throw new GatewayError('not_found', 'The client holds no key with that kid.');
        if (remaining.length === 0)
          throw new GatewayError('client_last_key', `${kid} is the client's only key; add its replacement first, or delete the client.`);
        return { jwks: remaining };
      });
      if (!client) throw new GatewayError('not_found', NOT_FOUND);
      audit(request.log, 'credential.key_removed', { kind: 'oauth_client', client_id: client.clientId, kid, keys: client.jwks.length, by: actorOf(request) });
      return publicClient(client);
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
