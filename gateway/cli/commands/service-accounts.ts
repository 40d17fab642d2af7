// gatewayctl service-accounts create|list|find|show|delete, and keys add|remove (key rotation). The Access ID is printed in full only by
// create; descriptions are printed escaped so stored text can never drive the terminal.
import { adminConnection, adminRequest, allPages, pageSize } from '../admin-client.js';
import { CliError, usageError } from '../cli-error.js';
import { ADMIN_OPTIONS, csv, PAGE_SIZE_OPTION, type Command } from '../command.js';
import type { CliContext } from '../context.js';
import { printJson, printLine, printTable } from '../output.js';
import { publicKeyFromOptions } from '../public-key-input.js';
import type { ServiceAccountView } from '../../admin/service-accounts-routes.js';

/** The list and show answers carry only the hint; create's answer also the full access_id. */
type ServiceAccount = ServiceAccountView & { access_id?: string };

/** Printable ASCII stays; everything else (controls, escapes, non-ASCII) is shown as a JSON escape. */
export function escapeForTerminal(text: string): string {
  return JSON.stringify(text)
    .slice(1, -1)
    .replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function printAccount(context: CliContext, account: ServiceAccount): void {
  const rows: [string, string][] = [
    ['id', account.id],
    ['access_id', account.access_id ?? account.access_id_hint],
    ['description', escapeForTerminal(account.description)],
    ['public_key', escapeForTerminal(account.public_key)],
    ['fingerprint', account.fingerprint],
    ...(account.public_keys && account.public_keys.length > 1
      ? account.public_keys.map((k, i): [string, string] => [
          `key ${i + 1}`,
          `${k.fingerprint} (added ${k.added_at}, ${k.last_used_at ? `last used ${k.last_used_at}` : 'not used since'})`,
        ])
      : []),
    ['expires_at', account.expires_at ?? 'never'],
    ['permissions', account.permissions.join(' ')],
    ['allowed_ips', account.allowed_ips.join(' ')],
    ['account_id', account.account_id ?? '-'],
    ['created_at', account.created_at],
    ['last_used', account.last_used_at ? `${account.last_used_at} from ${account.last_used_ip}` : 'never'],
  ];
  for (const [name, value] of rows) printLine(context, `${`${name}:`.padEnd(13)}${value}`);
}

export const serviceAccountCommands: Command[] = [
  {
    group: 'service-accounts',
    name: 'create',
    summary: 'Create a service account for the banking API; prints its Access ID once.',
    usage:
      'gatewayctl service-accounts create --description TEXT (--public-key LINE | --public-key-file FILE.pub) --permissions view_balance,... [--allowed-ips CIDR,...] [--account-id ID] [--expires-at TIME] [--json]',
    options: {
      description: { type: 'string', value: 'TEXT', required: true, description: 'which program uses the account, e.g. "Payroll export (production)"' },
      'public-key': { type: 'string', value: 'KEY', description: 'the public key itself, e.g. "ssh-ed25519 AAAA... payroll" (a private key is refused)' },
      'public-key-file': {
        type: 'string',
        value: 'FILE',
        description:
          'a file holding the public key: the .pub file from keygen or ssh-keygen, or an SPKI PEM or JWK file, sent as it is (a private key is refused)',
      },
      permissions: {
        type: 'string',
        value: 'LIST',
        description: 'comma-separated permissions, e.g. view_balance,initiate_payment; the policy declares them (gatewayctl policy permissions)',
      },
      'allowed-ips': { type: 'string', value: 'CIDRS', description: 'comma-separated addresses or CIDR ranges the account may call from (default: any)' },
      'account-id': { type: 'string', value: 'ID', description: 'passed to the banking API in x-gateway-account-id' },
      'expires-at': {
        type: 'string',
        value: 'TIME',
        description: 'when the credential stops working, an RFC 3339 UTC time in the future, e.g. 2030-01-31T17:00:00Z (default: never)',
      },
      ...ADMIN_OPTIONS,
    },
    async run(values, _positionals, context) {
      if (typeof values.description !== 'string') throw usageError('--description is required');
      // Read and checked before connecting, so a private key never leaves this machine.
      const publicKey = publicKeyFromOptions(values);
      const account = await adminRequest<ServiceAccount>(adminConnection(values, context.env), 'POST', '/admin/v1/service-accounts', {
        description: values.description,
        public_key: publicKey,
        permissions: csv(values.permissions),
        ...(values['allowed-ips'] ? { allowed_ips: csv(values['allowed-ips']) } : {}),
        ...(values['account-id'] ? { account_id: values['account-id'] } : {}),
        ...(typeof values['expires-at'] === 'string' ? { expires_at: values['expires-at'] } : {}),
      });
      if (values.json) return printJson(context, account);
      printAccount(context, account);
      printLine(context, 'The Access ID is shown only now: send it as x-access-id and keep it with the private key.');
    },
  },
  {
    group: 'service-accounts',
    name: 'list',
    summary: 'List service accounts (Access IDs partly hidden).',
    usage: 'gatewayctl service-accounts list [--page-size N] [--json]',
    options: { 'page-size': PAGE_SIZE_OPTION, ...ADMIN_OPTIONS },
    async run(values, _positionals, context) {
      const accounts = await allPages<ServiceAccount>(
        adminConnection(values, context.env),
        '/admin/v1/service-accounts',
        'service_accounts',
        pageSize(values['page-size']),
      );
      if (values.json) return printJson(context, accounts);
      printTable(
        context,
        accounts.map((a) => ({
          id: a.id,
          access_id: a.access_id_hint,
          description: escapeForTerminal(a.description),
          permissions: a.permissions.join(' '),
          allowed_ips: a.allowed_ips.join(' '),
          last_used: a.last_used_at ?? 'never',
        })),
        ['id', 'access_id', 'description', 'permissions', 'allowed_ips', 'last_used'],
      );
    },
  },
  {
    group: 'service-accounts',
    name: 'find',
    summary: 'Find the service account behind a full Access ID (for support; the ID is not printed back).',
    usage: 'gatewayctl service-accounts find ACCESS_ID [--json]',
    options: { ...ADMIN_OPTIONS },
    arguments: [{ name: 'ACCESS_ID', description: 'the full Access ID a caller sends in x-access-id' }],
    async run(values, [accessId], context) {
      if (!accessId) throw usageError('ACCESS_ID is required');
      const { service_accounts: found } = await adminRequest<{ service_accounts: ServiceAccount[] }>(
        adminConnection(values, context.env),
        'GET',
        `/admin/v1/service-accounts?access_id=${encodeURIComponent(accessId)}`,
      );
      if (values.json) return printJson(context, found[0] ?? null);
      if (found.length === 0) throw new CliError('No service account has that Access ID (it may have been deleted).');
      printAccount(context, found[0]!);
    },
  },
  {
    group: 'service-accounts',
    name: 'show',
    summary: 'Show one service account.',
    usage: 'gatewayctl service-accounts show ID [--json]',
    options: { ...ADMIN_OPTIONS },
    arguments: [{ name: 'ID', description: "the service account's id (from list)" }],
    async run(values, [id], context) {
      if (!id) throw usageError('ID is required');
      const account = await adminRequest<ServiceAccount>(adminConnection(values, context.env), 'GET', `/admin/v1/service-accounts/${encodeURIComponent(id)}`);
      if (values.json) return printJson(context, account);
      printAccount(context, account);
    },
  },
  {
    group: 'service-accounts',
    name: 'delete',
    summary: 'Delete a service account; its Access ID is refused at once on every gateway instance.',
    usage: 'gatewayctl service-accounts delete (ID | --access-id ACCESS_ID)',
    options: {
      'access-id': {
        type: 'string',
        value: 'ACCESS_ID',
        description: 'delete the account behind this full Access ID instead of an id; works for an account no list shows',
      },
      ...ADMIN_OPTIONS,
    },
    arguments: [{ name: 'ID', description: "the service account's id (from list)", optional: true }],
    async run(values, [id], context) {
      const accessId = values['access-id'];
      if (typeof accessId === 'string') {
        if (id) throw usageError('give an ID or --access-id, not both');
        await adminRequest(adminConnection(values, context.env), 'DELETE', `/admin/v1/service-accounts?access_id=${encodeURIComponent(accessId)}`);
        printLine(context, 'Deleted the service account behind that Access ID.');
        return;
      }
      if (!id) throw usageError('ID (or --access-id) is required');
      await adminRequest(adminConnection(values, context.env), 'DELETE', `/admin/v1/service-accounts/${encodeURIComponent(id)}`);
      printLine(context, `Deleted service account ${id}.`);
    },
  },
  {
    group: 'service-accounts',
    name: 'update',
    summary: 'Change what a service account may do (its Access ID and keys stay): effective on every instance at once.',
    usage:
      'gatewayctl service-accounts update ID [--description TEXT] [--permissions LIST] [--allowed-ips CIDRS | --any-address] [--expires-at TIME | --never-expires] [--json]',
    options: {
      description: { type: 'string', value: 'TEXT', description: 'a new description of what the account is for' },
      permissions: { type: 'string', value: 'LIST', description: 'the whole new list of permissions, comma-separated (it replaces the old one)' },
      'allowed-ips': { type: 'string', value: 'CIDRS', description: 'the whole new list of addresses or CIDR ranges, comma-separated' },
      'any-address': { type: 'boolean', description: 'allow any address again (0.0.0.0/0 and ::/0)' },
      'expires-at': { type: 'string', value: 'TIME', description: 'a new expiry, an RFC 3339 UTC time in the future' },
      'never-expires': { type: 'boolean', description: 'remove the expiry' },
      ...ADMIN_OPTIONS,
    },
    arguments: [{ name: 'ID', description: "the service account's id (from list)" }],
    async run(values, [id], context) {
      if (!id) throw usageError('ID is required');
      if (values['allowed-ips'] !== undefined && values['any-address'] === true) throw usageError('give --allowed-ips or --any-address, not both');
      if (values['expires-at'] !== undefined && values['never-expires'] === true) throw usageError('give --expires-at or --never-expires, not both');
      const change = {
        ...(typeof values.description === 'string' ? { description: values.description } : {}),
        ...(typeof values.permissions === 'string' ? { permissions: csv(values.permissions) } : {}),
        ...(typeof values['allowed-ips'] === 'string' ? { allowed_ips: csv(values['allowed-ips']) } : {}),
        ...(values['any-address'] === true ? { allowed_ips: null } : {}),
        ...(typeof values['expires-at'] === 'string' ? { expires_at: values['expires-at'] } : {}),
        ...(values['never-expires'] === true ? { expires_at: null } : {}),
      };
      if (Object.keys(change).length === 0) throw usageError('nothing to change: give at least one of the options');
      const account = await adminRequest<ServiceAccount>(
        adminConnection(values, context.env),
        'PATCH',
        `/admin/v1/service-accounts/${encodeURIComponent(id)}`,
        change,
      );
      if (values.json) return printJson(context, account);
      printAccount(context, account);
    },
  },
  {
    group: 'service-accounts keys',
    name: 'add',
    summary: 'Add a second public key to a service account (key rotation); the Access ID stays the same and both keys verify until one is removed.',
    usage: 'gatewayctl service-accounts keys add ID (--public-key LINE | --public-key-file FILE.pub) [--json]',
    options: {
      'public-key': {
        type: 'string',
        value: 'KEY',
        description: 'the new public key itself, e.g. "ssh-ed25519 AAAA... payroll-2027" (a private key is refused)',
      },
      'public-key-file': {
        type: 'string',
        value: 'FILE',
        description: 'a file holding the new public key: a .pub file, or an SPKI PEM or JWK file (a private key is refused)',
      },
      ...ADMIN_OPTIONS,
    },
    arguments: [{ name: 'ID', description: "the service account's id (from list)" }],
    async run(values, [id], context) {
      if (!id) throw usageError('ID is required');
      // Read and checked before connecting, so a private key never leaves this machine.
      const publicKey = publicKeyFromOptions(values);
      const account = await adminRequest<ServiceAccount>(
        adminConnection(values, context.env),
        'POST',
        `/admin/v1/service-accounts/${encodeURIComponent(id)}/keys`,
        { public_key: publicKey },
      );
      if (values.json) return printJson(context, account);
      printAccount(context, account);
      printLine(
        context,
        'Both keys now verify. Once every client signs with the new key, remove the old one: gatewayctl service-accounts keys remove ID FINGERPRINT.',
      );
    },
  },
  {
    group: 'service-accounts keys',
    name: 'remove',
    summary: 'Remove one public key of a service account; signatures made with it are refused at once. The last key cannot be removed.',
    usage: 'gatewayctl service-accounts keys remove ID FINGERPRINT [--json]',
    options: { ...ADMIN_OPTIONS },
    arguments: [
      { name: 'ID', description: "the service account's id (from list)" },
      { name: 'FINGERPRINT', description: "the key's fingerprint as show prints it, e.g. SHA256:abc... (ssh-keygen -lf KEY.pub prints it too)" },
    ],
    async run(values, [id, fingerprint], context) {
      if (!id) throw usageError('ID is required');
      if (!fingerprint) throw usageError('FINGERPRINT is required');
      if (!/^SHA256:[A-Za-z0-9+/]+=*$/.test(fingerprint))
        throw usageError(`FINGERPRINT must look like SHA256:... (as show or ssh-keygen -lf prints it), not ${JSON.stringify(fingerprint)}`);
      const account = await adminRequest<ServiceAccount>(
        adminConnection(values, context.env),
        'DELETE',
        `/admin/v1/service-accounts/${encodeURIComponent(id)}/keys/${encodeURIComponent(fingerprint)}`,
      );
      if (values.json) return printJson(context, account);
      printAccount(context, account);
      printLine(context, `Removed key ${fingerprint}; signatures made with it are refused from now on.`);
    },
  },
];
