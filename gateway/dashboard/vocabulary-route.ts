// What the create forms offer: the seven permissions with their meanings (seed 5.3) and the routes
// each one opens in the running policy (seed 4.2), the OAuth scopes, and the default allow-list.
// Served from the same tables the gateway enforces, so the form cannot drift from them.
import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../errors.js';
import type { PolicyHolder } from '../policy/route-table.js';
import { PERMISSIONS, PERMISSION_NAMES, SCOPES } from '../policy/vocabulary.js';
import { DEFAULT_ALLOWED_IPS } from '../service-accounts/allowed-ips.js';
import type { DashboardAuth } from './session-auth.js';

export function registerVocabularyRoute(app: FastifyInstance, auth: DashboardAuth, policy: PolicyHolder): void {
  app.get('/dashboard/api/vocabulary', async (request) => {
    if (!(await auth.sessionOf(request))) throw new GatewayError('admin_unauthorized');
    const routes = policy.current.routes;
    return {
      permissions: PERMISSION_NAMES.map((name) => ({
        name,
        meaning: PERMISSIONS[name],
        routes: routes.filter((r) => r.permissions.includes(name)).map((r) => ({ method: r.method, path: r.template })),
      })),
      scopes: SCOPES.map((name) => ({
        name,
        routes: routes.filter((r) => r.scopes.includes(name)).map((r) => ({ method: r.method, path: r.template })),
      })),
      default_allowed_ips: DEFAULT_ALLOWED_IPS,
    };
  });
}
