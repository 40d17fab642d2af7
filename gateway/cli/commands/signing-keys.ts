// gatewayctl keys list|rotate|retire: the JWT signing keys of the tokens the gateway issues.
import { adminConnection, adminRequest } from '../admin-client.js';
import { usageError } from '../cli-error.js';
import { ADMIN_OPTIONS, type Command } from '../command.js';
import { printJson, printLine, printTable } from '../output.js';
import type { SigningKeyRetirementView, SigningKeyView } from '../../admin/signing-keys-routes.js';

export const signingKeyCommands: Command[] = [
  {
    group: 'keys',
    name: 'list',
    summary: 'List the signing keys: the active one, those rotated out (with until when they verify) and those retired.',
    usage: 'gatewayctl keys list [--json]',
    options: { ...ADMIN_OPTIONS },
    async run(values, _positionals, context) {
      const { keys } = await adminRequest<{ keys: SigningKeyView[] }>(adminConnection(values, context.env), 'GET', '/admin/v1/signing-keys');
      if (values.json) return printJson(context, keys);
      printTable(
        context,
        keys.map((k) => ({
          kid: k.kid,
          alg: k.alg,
          state: k.state,
          created: k.created_at ?? '-',
          verifies_until: k.verifies_until ?? '-',
          retired: k.retired_at ?? '-',
        })),
        ['kid', 'alg', 'state', 'created', 'verifies_until', 'retired'],
      );
    },
  },
  {
    group: 'keys',
    name: 'rotate',
    summary: 'Rotate the JWT signing key; the old key stays in the JWKS until the tokens it signed have expired.',
    usage: 'gatewayctl keys rotate [--json]',
    options: { ...ADMIN_OPTIONS },
    async run(values, _positionals, context) {
      const result = await adminRequest<{ active_kid: string; previous_kid: string }>(
        adminConnection(values, context.env),
        'POST',
        '/admin/v1/signing-keys/rotate',
      );
      if (values.json) return printJson(context, result);
      printLine(context, `Active key:   ${result.active_kid}\nPrevious key: ${result.previous_kid} (still verifies the tokens it signed until they expire)`);
    },
  },
  {
    group: 'keys',
    name: 'retire',
    summary: 'Retire a rotated-out signing key now (a stolen key): its tokens are refused on every instance at once, and it leaves the JWKS.',
    usage: 'gatewayctl keys retire KID [--json]',
    options: { ...ADMIN_OPTIONS },
    arguments: [{ name: 'KID', description: 'the kid of the key to retire, as keys list shows it' }],
    details: 'The active key cannot be retired: run keys rotate first, then retire the key it rotated out. Retiring a retired key again changes nothing.',
    async run(values, [kid], context) {
      if (!kid) throw usageError('KID is required');
      const retired = await adminRequest<SigningKeyRetirementView>(
        adminConnection(values, context.env),
        'POST',
        `/admin/v1/signing-keys/${encodeURIComponent(kid)}/retire`,
      );
      if (values.json) return printJson(context, retired);
      if (retired.already_retired) printLine(context, `Key ${retired.kid} was already retired (at ${retired.retired_at}); nothing changed.`);
      else printLine(context, `Retired key ${retired.kid}: the tokens it signed are refused on every instance from now on, and it has left the JWKS.`);
    },
  },
];
