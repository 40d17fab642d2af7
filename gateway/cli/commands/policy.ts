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

export const policyCommands: Command[] = [
  {
    group: 'policy',
    name: 'scopes',
    summary: 'List the scopes the policy declares, with their descriptions and the routes that need them.',
    usage: 'gatewayctl policy scopes [--json]',
    options: { ...ADMIN_OPTIONS },
    details: 'OAuth clients may be granted these scopes only (gatewayctl clients create --scopes).',
    async run(values, _positionals, context) {
      const policy = await policyOf(values, context);
      if (values.json) return printJson(context, policy.scopes);
      printTable(
        context,
        policy.scopes.map((s) => ({ name: s.name, description: s.description, routes: routesNaming(policy.routes, 'scopes', s.name) })),
        ['name', 'description', 'routes'],
      );
    },
  },
  {
    group: 'policy',
    name: 'permissions',
    summary: 'List the permissions the policy declares, with their descriptions, whether they move money, and the routes that need them.',
    usage: 'gatewayctl policy permissions [--json]',
    options: { ...ADMIN_OPTIONS },
    details: 'Service accounts may be granted these permissions only (gatewayctl service-accounts create --permissions).',
    async run(values, _positionals, context) {
      const policy = await policyOf(values, context);
      if (values.json) return printJson(context, policy.permissions);
      printTable(
        context,
        policy.permissions.map((p) => ({
          name: p.name,
          description: p.description,
          moves_money: p.moves_money ? 'yes' : 'no',
          routes: routesNaming(policy.routes, 'permissions', p.name),
        })),
        ['name', 'description', 'moves_money', 'routes'],
      );
    },
  },
];
