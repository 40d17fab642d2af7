// The private admin listener: health and metrics for SREs, the dashboard, and the admin API behind
// the admin token or a dashboard session (the CLI and the dashboard use the same API).
import type { FastifyInstance } from 'fastify';
import type { Settings } from '../config/settings.js';
import { statusClass, type GatewayMetrics } from '../metrics/metrics.js';
import type { ClientSecretHasher } from '../oauth/client-secrets.js';
import type { SigningKeys } from '../oauth/signing-keys.js';
import type { PolicyHolder } from '../policy/route-table.js';
import { reasonOf } from '../store/circuit-breaker.js';
import type { CredentialStore } from '../store/types.js';
import { adminGuard } from './admin-auth.js';
import { requireAdminHost } from './admin-host.js';
import { registerClientRoutes } from './clients-routes.js';
import { ADMIN_SECURITY, documentListener, mergedDocument, type ApiDocument } from './api-document.js';
import { adminErrors } from './schemas/error-body.js';
import { PolicySchema } from './schemas/operations.js';
import { policyView } from './policy-view.js';
import { reportRemovedVocabulary } from './removed-vocabulary.js';
import { described } from '../http/schema-helpers.js';
import { registerServiceAccountRoutes } from './service-accounts-routes.js';
import { registerSigningKeyRoutes } from './signing-keys-routes.js';
import { registerStoreRoutes } from './store-routes.js';
import { registerDashboard } from '../dashboard/dashboard-app.js';

/** What keeps the gateway from being ready, and which store nodes are lost while it serves. */
export interface ReadinessView {
  missing(): { what: string; why: string }[];
  degraded(): { node: string; why: string }[];
}

export interface AdminDependencies {
  settings: Settings;
  store: CredentialStore;
  hasher: ClientSecretHasher;
  keys: SigningKeys;
  metrics: GatewayMetrics;
  policy: PolicyHolder;
  /** Whether the process is draining (gateway/process/lifecycle.ts): /readyz answers 503 then. */
  lifecycle: { readonly draining: boolean };
  /** What /readyz reports (gateway/ops/readiness.ts). */
  readiness: ReadinessView;
  /** The public listener's generated OpenAPI document, merged into the one served here. */
  publicApiDocument: () => Promise<ApiDocument>;
}

export async function registerAdmin(app: FastifyInstance, deps: AdminDependencies): Promise<void> {
  // First: @fastify/swagger documents the routes registered after it.
  await documentListener(app, 'admin', deps.settings);
  app.addHook('onRequest', requireAdminHost(deps.settings.adminHostnames));
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (_request, reply) => {
    // A stopping process still answers, but load balancers must send new work elsewhere.
    if (deps.lifecycle.draining) return reply.code(503).send({ status: 'draining', store: deps.store.kind });
    // What is missing (store, redis_persistence, client_secret_hash_key, signing_keys) and why.
    const missing = deps.readiness.missing();
    // Cluster masters down (their keys get 503; the rest is served): shown, not a reason to be unready.
    const degraded = deps.readiness.degraded();
    const nodes = degraded.length === 0 ? {} : { degraded_nodes: Object.fromEntries(degraded.map((d) => [d.node, d.why])) };
    if (missing.length === 0) {
      try {
        await deps.store.ping();
        return { status: 'ready', store: deps.store.kind, ...nodes };
      } catch (error) {
        missing.push({ what: 'store', why: reasonOf(error) });
      }
    }
    return reply.code(503).send({
      status: 'unavailable',
      store: deps.store.kind,
      error: 'store_unavailable',
      missing: missing.map((m) => m.what),
      details: Object.fromEntries(missing.map((m) => [m.what, m.why])),
      ...nodes,
    });
  });

  app.get('/metrics', async (_request, reply) => {
    reply.header('content-type', deps.metrics.registry.contentType);
    return deps.metrics.registry.metrics();
  });

  app.get('/admin/openapi.json', async () => mergedDocument(app.swagger() as unknown as ApiDocument, await deps.publicApiDocument()));

  const dashboard = await registerDashboard(app, deps);
  reportRemovedVocabulary(deps.policy, deps.store, app.log);

  await app.register(async (api) => {
    // A session cookie counts only with its CSRF token on changes (checked by the dashboard).
    api.addHook('onRequest', adminGuard(deps.settings.adminToken!, dashboard.sessionCheck));
    // Every change asked of the API, by route template (bounded), and how it ended.
    api.addHook('onResponse', async (request, reply) => {
      if (request.method === 'GET' || request.method === 'HEAD') return;
      deps.metrics.adminActions.inc({ action: `${request.method} ${reply.routeOptions.url ?? 'unmatched'}`, status_class: statusClass(reply.statusCode) });
    });
    const vocabulary = () => deps.policy.current.vocabulary;
    registerClientRoutes(api, deps.store, deps.hasher, vocabulary, deps.settings.oauthProfile);
    registerServiceAccountRoutes(api, deps.store, vocabulary);
    registerSigningKeyRoutes(api, deps.keys);
    registerStoreRoutes(api, deps.store);

    const policySchema = {
      summary: 'The active policy: its routes, and the scopes and permissions it declares.',
      tags: ['Operations'],
      security: ADMIN_SECURITY,
      response: { 200: described(PolicySchema, 'The routes and the declared vocabulary.'), ...adminErrors() },
    };
    api.get('/admin/v1/policy', { schema: policySchema }, async () => policyView(deps.policy.current));
  });
}
