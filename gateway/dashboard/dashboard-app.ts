// The dashboard on the admin listener: pages, sign-in and sessions. Its scripts use the admin API
// itself, authenticated by the session cookie through the check this returns for adminGuard.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fastifyCookie from '@fastify/cookie';
import type { Settings } from '../config/settings.js';
import { clientAddressOf } from '../net/client-ip.js';
import type { PolicyHolder } from '../policy/route-table.js';
import type { CredentialStore } from '../store/types.js';
import { findDashboardDir } from './assets-dir.js';
import { registerPages } from './pages.js';
import { addSecurityHeaders } from './security-headers.js';
import { DashboardAuth } from './session-auth.js';
import { DashboardSessions } from './sessions.js';
import { FailureThrottle } from '../http/failure-throttle.js';
import { registerSessionPolicyRoute } from './session-policy-route.js';
import { registerSignInRoutes } from './sign-in-routes.js';
import { registerVocabularyRoute } from './vocabulary-route.js';

export interface DashboardDependencies {
  settings: Settings;
  store: CredentialStore;
  policy: PolicyHolder;
}

export async function registerDashboard(app: FastifyInstance, deps: DashboardDependencies): Promise<DashboardAuth> {
  const { settings } = deps;
  const auth = new DashboardAuth(settings, new DashboardSessions(deps.store, settings.sessionTtlSeconds));
  // Registered on the listener itself, so the admin API's guard can read the session cookie too.
  await app.register(fastifyCookie);
  const dashboardDir = findDashboardDir();
  await app.register(async (scope) => {
    addSecurityHeaders(scope);
    await registerPages(scope, auth, dashboardDir);
    registerSignInRoutes(scope, {
      settings,
      auth,
      throttle: new FailureThrottle(deps.store, settings, 'dashboard-sign-in', 'failed sign-ins', 'reserve-first'),
      addressOf: (request: FastifyRequest) => clientAddressOf(request, settings.trustedProxies),
    });
    registerSessionPolicyRoute(scope, settings);
    registerVocabularyRoute(scope, auth, deps.policy);
  });
  return auth;
}
