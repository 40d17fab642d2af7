// gatewayctl clients create|list|show|delete|roll-secret, and keys add|remove (a private_key_jwt
// client's key rotation).
import { readFileSync } from 'node:fs';
import { adminConnection, adminRequest, allPages, pageSize } from '../admin-client.js';
import { usageError } from '../cli-error.js';
import { ADMIN_OPTIONS, csv, PAGE_SIZE_OPTION, type Command } from '../command.js';
import { printJson, printLine, printTable } from '../output.js';
import type { ClientView, ClientWithUseView, RolledSecretView } from '../../admin/clients-routes.js';
import { escapeForTerminal } from './service-accounts.js';

type Client = ClientView & { client_secret?: string };

/** A JSON file's content (a JWK Set, or one JWK), parsed here: the gateway checks the keys. */
function jsonFile(file: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw usageError(`cannot read ${what} file ${JSON.stringify(file)}`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw usageError(`${what} file ${JSON.stringify(file)} is not JSON`);
  }
}

function printKeys(context: Parameters<Command['run']>[2], client: ClientView): void {
  printLine(context, `client_id: ${client.client_id}`);
  for (const key of client.jwks?.keys ?? []) printLine(context, `key:       ${key.kid} (${key.kty}${key.crv ? ` ${key.crv}` : ''})`);
}

export const clientCommands: Command[] = [
  {
    group: 'clients',
    name: 'create',
    summary: 'Create an OAuth client; prints its client_secret once.',
    usage: 'gatewayctl clients create --name NAME --scopes sales,products [--account-id ID] [--resource-server] [--jwks-file FILE] [--dpop-bound] [--json]',
    options: {
      name: { type: 'string', value: 'NAME', required: true, description: 'which application uses the client, e.g. "Storefront backend"' },
      scopes: {
        type: 'string',
        value: 'LIST',
        description: 'comma-separated scopes the client may get tokens for, e.g. sales,products; the policy declares them (gatewayctl policy scopes)',
      },
      'account-id': { type: 'string', value: 'ID', description: 'passed to the upstream in x-gateway-account-id' },
      'resource-server': { type: 'boolean', description: "allow the client to introspect other clients' tokens" },
      'jwks-file': {
        type: 'string',
        value: 'FILE',
        description: 'a private_key_jwt client: a JSON file with its public keys, {"keys": [...]} (Ed25519, P-256 or RSA); it gets no secret',
      },
      'dpop-bound': { type: 'boolean', description: 'every token request must carry a DPoP proof, so every token is bound to a key (RFC 9449)' },
      ...ADMIN_OPTIONS,
    },
    async run(values, _positionals, context) {
      if (!values.name) throw usageError('--name must not be empty');
      const jwksFile = values['jwks-file'];
      const keys = typeof jwksFile === 'string' ? { token_endpoint_auth_method: 'private_key_jwt', jwks: jsonFile(jwksFile, 'JWKS') } : {};
      const client = await adminRequest<Client>(adminConnection(values, context.env), 'POST', '/admin/v1/clients', {
        name: values.name,
        scopes: csv(values.scopes),
        ...(values['account-id'] ? { account_id: values['account-id'] } : {}),
        resource_server: values['resource-server'] === true,
        ...keys,
        ...(values['dpop-bound'] === true ? { dpop_bound_access_tokens: true } : {}),
      });
      if (values.json) return printJson(context, client);
      if (client.client_secret === undefined) {
        printKeys(context, client);
        printLine(context, `scopes:    ${client.scopes.join(' ')}`);
        printLine(context, 'No secret: the client signs a client assertion (private_key_jwt) with one of these keys.');
        return;
      }
      printLine(context, `client_id:       ${client.client_id}`);
      printLine(context, `client_secret:   ${client.client_secret}`);
      printLine(context, `scopes:          ${client.scopes.join(' ')}`);
      printLine(context, `resource_server: ${client.resource_server ? 'yes (may introspect tokens)' : 'no'}`);
      if (client.dpop_bound_access_tokens) printLine(context, 'dpop_bound:      yes (each token request must carry a DPoP proof)');
      printLine(context, 'The secret is shown only now: store it safely.');
    },
  },
  {
    group: 'clients',
    name: 'list',
    summary: 'List OAuth clients.',
    usage: 'gatewayctl clients list [--page-size N] [--json]',
    options: { 'page-size': PAGE_SIZE_OPTION, ...ADMIN_OPTIONS },
    async run(values, _positionals, context) {
      const clients = await allPages<ClientWithUseView>(adminConnection(values, context.env), '/admin/v1/clients', 'clients', pageSize(values['page-size']));
      if (values.json) return printJson(context, clients);
      printTable(
        context,
        clients.map((c) => ({
          client_id: c.client_id,
          name: c.name,
          scopes: c.scopes.join(' '),
          resource_server: c.resource_server ? 'yes' : 'no',
          created: c.created_at,
          last_used: c.last_used_at ?? 'never',
        })),
        ['client_id', 'name', 'scopes', 'resource_server', 'created', 'last_used'],
      );
    },
  },
  {
    group: 'clients',
    name: 'delete',
    summary: 'Delete an OAuth client; its tokens stop working at once.',
    usage: 'gatewayctl clients delete CLIENT_ID',
    options: { ...ADMIN_OPTIONS },
    arguments: [{ name: 'CLIENT_ID', description: 'the client to delete' }],
    async run(values, [clientId], context) {
      if (!clientId) throw usageError('CLIENT_ID is required');
      await adminRequest(adminConnection(values, context.env), 'DELETE', `/admin/v1/clients/${encodeURIComponent(clientId)}`);
      printLine(context, `Deleted client ${clientId}.`);
    },
  },
  {
    group: 'clients',
    name: 'update',
    summary: "Change a client's name or scopes; a scope removed stops working at once, also in tokens already issued.",
    usage: 'gatewayctl clients update CLIENT_ID [--name NAME] [--scopes LIST] [--json]',
    options: {
      name: { type: 'string', value: 'NAME', description: 'a new name, shown in lists and logs' },
      scopes: { type: 'string', value: 'LIST', description: 'the whole new list of scopes, comma-separated (it replaces the old one)' },
      ...ADMIN_OPTIONS,
    },
    arguments: [{ name: 'CLIENT_ID', description: "the client's id" }],
    async run(values, [clientId], context) {
      if (!clientId) throw usageError('CLIENT_ID is required');
      const change = {
        ...(typeof values.name === 'string' ? { name: values.name } : {}),
        ...(typeof values.scopes === 'string' ? { scopes: csv(values.scopes) } : {}),
      };
      if (Object.keys(change).length === 0) throw usageError('nothing to change: give --name, --scopes or both');
      const client = await adminRequest<Client>(adminConnection(values, context.env), 'PATCH', `/admin/v1/clients/${encodeURIComponent(clientId)}`, change);
      if (values.json) return printJson(context, client);
      printLine(context, `client_id: ${client.client_id}`);
      printLine(context, `name:      ${escapeForTerminal(client.name)}`);
      printLine(context, `scopes:    ${client.scopes.join(' ')}`);
    },
  },
  {
    group: 'clients',
    name: 'roll-secret',
    summary: 'Give an OAuth client a new secret; prints it once. The old one works for the grace period, then only the new one.',
    usage: 'gatewayctl clients roll-secret CLIENT_ID [--grace-seconds N] [--json]',
    options: {
      'grace-seconds': {
        type: 'string',
        value: 'N',
        description: 'how long the old secret keeps working, 0 to 604800 seconds (7 days); default 0: refused at once',
      },
      ...ADMIN_OPTIONS,
    },
    arguments: [{ name: 'CLIENT_ID', description: 'the client whose secret to roll' }],
    details: 'Tokens already issued stay valid. Rolling again during a grace period ends the older secret at once: at most two secrets work at a time.',
    async run(values, [clientId], context) {
      if (!clientId) throw usageError('CLIENT_ID is required');
      const grace = values['grace-seconds'];
      if (grace !== undefined && (typeof grace !== 'string' || !/^\d+$/.test(grace))) throw usageError('--grace-seconds must be a whole number of seconds');
      const rolled = await adminRequest<RolledSecretView>(
        adminConnection(values, context.env),
        'POST',
        `/admin/v1/clients/${encodeURIComponent(clientId)}/secret`,
        grace === undefined ? {} : { grace_seconds: Number(grace) },
      );
      if (values.json) return printJson(context, rolled);
      printLine(context, `client_id:     ${rolled.client_id}`);
      printLine(context, `client_secret: ${rolled.client_secret}`);
      printLine(context, `old secret:    ${rolled.previous_secret_expires_at ? `works until ${rolled.previous_secret_expires_at}` : 'refused from now on'}`);
      printLine(context, 'The secret is shown only now: store it safely.');
    },
  },
  {
    group: 'clients keys',
    name: 'add',
    summary: 'Add a second public key to a private_key_jwt client (key rotation); both keys verify until one is removed.',
    usage: 'gatewayctl clients keys add CLIENT_ID --jwk-file FILE [--json]',
    options: {
      'jwk-file': { type: 'string', value: 'FILE', required: true, description: 'a JSON file with the new public JWK (a private key is refused)' },
      ...ADMIN_OPTIONS,
    },
    arguments: [{ name: 'CLIENT_ID', description: 'the private_key_jwt client' }],
    async run(values, [clientId], context) {
      if (!clientId) throw usageError('CLIENT_ID is required');
      const jwk = jsonFile(String(values['jwk-file']), 'JWK');
      const client = await adminRequest<ClientView>(adminConnection(values, context.env), 'POST', `/admin/v1/clients/${encodeURIComponent(clientId)}/keys`, {
        jwk,
      });
      if (values.json) return printJson(context, client);
      printKeys(context, client);
      printLine(context, 'Both keys now verify. Once the client signs with the new key, remove the old one: gatewayctl clients keys remove CLIENT_ID KID.');
    },
  },
  {
    group: 'clients keys',
    name: 'remove',
    summary: 'Remove one public key of a private_key_jwt client; assertions signed with it are refused at once. The last key cannot be removed.',
    usage: 'gatewayctl clients keys remove CLIENT_ID KID [--json]',
    options: { ...ADMIN_OPTIONS },
    arguments: [
      { name: 'CLIENT_ID', description: 'the private_key_jwt client' },
      { name: 'KID', description: "the key's kid, as clients show prints it" },
    ],
    async run(values, [clientId, kid], context) {
      if (!clientId) throw usageError('CLIENT_ID is required');
      if (!kid) throw usageError('KID is required');
      const client = await adminRequest<ClientView>(
        adminConnection(values, context.env),
        'DELETE',
        `/admin/v1/clients/${encodeURIComponent(clientId)}/keys/${encodeURIComponent(kid)}`,
      );
      if (values.json) return printJson(context, client);
      printKeys(context, client);
      printLine(context, `Removed key ${kid}; assertions signed with it are refused from now on.`);
    },
  },
];
