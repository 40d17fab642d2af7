// gatewayctl policy scopes|permissions: the names the policy in force declares, with their
// descriptions and the routes each one opens: what `clients create --scopes` and
// `service-accounts create --permissions` accept.
import type { policyView } from '../../admin/policy-view.js';
import { adminConnection, adminRequest } from '../admin-client.js';
import { ADMIN_OPTIONS, type Command } from '../command.js';
import type { CliContext } from '../context.js';
import { printJson, printTable } from '../output.js';

type PolicyView = ReturnType<typeof policyView>;
type Route = PolicyView['routes'][number];

/** The routes naming `name` in the field, as METHOD /path. */
function routesNaming(routes: readonly Route[], field: 'scopes' | 'permissions', name: string): string {
  const named = routes.filter((r) => r[field].includes(name)).map((r) => `${r.method} ${r.path}`);
  return named.length === 0 ? '(no route)' : named.join(', ');
}

async function policyOf(values: Record<string, unknown>, context: CliContext): Promise<PolicyView> {
  return adminRequest<PolicyView>(adminConnection(values, context.env), 'GET', '/admin/v1/policy');
}

type Kind = 'scopes' | 'permissions';

/** What tells one listing from the other: its texts, and the columns of its own. */
interface Listing<K extends Kind> {
  readonly kind: K;
  readonly summary: string;
  readonly details: string;
  /** Columns between the description and the routes, by name. */
  readonly extra?: (entry: PolicyView[K][number]) => Record<string, string>;
}

/** gatewayctl policy <kind>: the declared names as JSON, or a table with the routes needing each. */
function listDeclared<K extends Kind>(listing: Listing<K>): Command {
  return {
    group: 'policy',
    name: listing.kind,
    summary: listing.summary,
    usage: `gatewayctl policy ${listing.kind} [--json]`,
    options: { ...ADMIN_OPTIONS },
    details: listing.details,
    async run(values, _positionals, context) {
      const policy = await policyOf(values, context);
      const entries: readonly PolicyView[K][number][] = policy[listing.kind];
      if (values.json) return printJson(context, entries);
      const rows = entries.map((entry) => ({
        name: entry.name,
        description: entry.description,
        ...listing.extra?.(entry),
        routes: routesNaming(policy.routes, listing.kind, entry.name),
      }));
      // The columns in the rows' own order (no rows: printTable says none).
      printTable(context, rows, Object.keys(rows[0] ?? {}));
    },
  };
}

export const policyCommands: Command[] = [
  listDeclared({
    kind: 'scopes',
    summary: 'List the scopes the policy declares, with their descriptions and the routes that need them.',
    details: 'OAuth clients may be granted these scopes only (gatewayctl clients create --scopes).',
  }),
  listDeclared({
    kind: 'permissions',
    summary: 'List the permissions the policy declares, with their descriptions, whether they move money, and the routes that need them.',
    details: 'Service accounts may be granted these permissions only (gatewayctl service-accounts create --permissions).',
    extra: (permission) => ({ moves_money: permission.moves_money ? 'yes' : 'no' }),
  }),
];
