// What the create forms offer: the permissions and the scopes the policy declares, with their
// descriptions, the "moves money" mark, and the routes each one opens in the running policy, and
// the default allow-list. Served from the policy the gateway enforces, so the forms cannot drift
// from it (a reload shows at the next page load).
import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../errors.js';
import type { PolicyRoute } from '../policy/policy-loader.js';
import type { PolicyHolder } from '../policy/route-table.js';
import { DEFAULT_ALLOWED_IPS } from '../service-accounts/allowed-ips.js';
import type { DashboardAuth } from './session-auth.js';

function routesNaming(routes: readonly PolicyRoute[], named: (route: PolicyRoute) => readonly string[], name: string) {
  return routes.filter((r) => named(r).includes(name)).map((r) => ({ method: r.method, path: r.template }));
}

export function registerVocabularyRoute(app: FastifyInstance, auth: DashboardAuth, policy: PolicyHolder): void {
  app.get('/dashboard/api/vocabulary', async (request) => {
    if (!(await auth.sessionOf(request))) throw new GatewayError('admin_unauthorized');
    const { routes, vocabulary } = policy.current;
    return {
      permissions: [...vocabulary.permissions.values()].map((p) => ({
        name: p.name,
        description: p.description,
        moves_money: p.movesMoney,
        routes: routesNaming(routes, (r) => r.permissions, p.name),
      })),
      scopes: [...vocabulary.scopes.values()].map((s) => ({
        name: s.name,
        description: s.description,
        routes: routesNaming(routes, (r) => r.scopes, s.name),
      })),
      default_allowed_ips: DEFAULT_ALLOWED_IPS,
    };
  });
}
