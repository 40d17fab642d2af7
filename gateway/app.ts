// Builds the gateway from validated settings: the public listener (token endpoint + policy-driven
// proxy) and the private admin listener (admin API, dashboard, health, metrics).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import formBody from '@fastify/formbody';
import type { DestinationStream } from 'pino';
import { missingUpstreamUrls } from './config/routed-upstreams.js';
import { SettingsError, type Settings } from './config/settings.js';
import { upstreamsWithUrls } from './config/upstream-settings.js';
import { BodyBudget, countBodyAgainst } from './http/body-budget.js';
import { FailureThrottle } from './http/failure-throttle.js';
import { newFastify } from './http/listener.js';
import { BUILD } from './build-info.js';
import { GatewayMetrics } from './metrics/metrics.js';
import { clientAddressOf } from './net/client-ip.js';
import { AccessTokens } from './oauth/access-tokens.js';
import { ClientAuthenticator } from './oauth/client-authentication.js';
import { registerDiscovery, tokenEndpointUrl } from './oauth/discovery.js';
import { DpopProofs } from './oauth/dpop.js';
import { DpopNonces } from './oauth/dpop-nonces.js';
import type { SigningKeys } from './oauth/signing-keys.js';
import { registerTokenEndpoint, type OAuthDependencies } from './oauth/token-endpoint.js';
import { registerTokenManagement } from './oauth/token-management.js';
import { BearerAuthenticator } from './pipeline/authenticate/bearer.js';
import { FapiRequestSignatures } from './pipeline/authenticate/fapi-signature.js';
import { observeRequests } from './pipeline/observe.js';
import { requestChecker, type CheckDependencies } from './pipeline/pipeline.js';
import { registerProxy } from './pipeline/proxy.js';
import { DecisionListener } from './decision/decision-listener.js';
import { GrpcDecisionListener } from './decision/grpc/grpc-decision-listener.js';
import { loadPolicies, type Policy } from './policy/policy-loader.js';
import { PolicyHolder } from './policy/route-table.js';
import { Lifecycle } from './process/lifecycle.js';
import { SignatureAuthenticator } from './pipeline/authenticate/signature/signature-authenticator.js';
import { UsageRecorder } from './store/usage-recorder.js';
import { openStoreRuntime } from './ops/store-runtime.js';
import { observeListenerLoad } from './http/listener-metrics.js';
import { missingResponseSigningKey, registerResponseSigning } from './pipeline/response-signing.js';
import type { Readiness } from './ops/readiness.js';
import type { CredentialStore } from './store/types.js';
import { registerAdmin } from './admin/admin-app.js';
import { documentListener, listenerDocument } from './admin/api-document.js';
import { startTracing } from './tracing/tracing.js';

export interface GatewayOptions {
  /** A store to use instead of the one the settings name (tests share one across instances). */
  store?: CredentialStore;
  /** Where both listeners write their JSON logs (tests capture them). */
  logStream?: DestinationStream;
  /** Called when the gateway must not run (production with a Redis that does not persist): main.ts exits. */
  onFatal?: (message: string) => void;
}

/** How long a stop waits for the last spans to be exported. */
const TRACING_SHUTDOWN_MS = 5000;

export interface Gateway {
  readonly settings: Settings;
  readonly publicApp: FastifyInstance;
  readonly adminApp: FastifyInstance;
  /** The decision listener for edge proxies; only when GATEWAY_DECISION_PORT is set. */
  readonly decisionListener: DecisionListener | undefined;
  /** Envoy's gRPC external authorization service; only when GATEWAY_DECISION_GRPC_PORT is set. */
  readonly decisionGrpc: GrpcDecisionListener | undefined;
  readonly store: CredentialStore;
  readonly policy: PolicyHolder;
  readonly keys: SigningKeys;
  readonly metrics: GatewayMetrics;
  /** Store up, shared keys loaded, persistence acceptable: what /readyz reports (gateway/ops/readiness.ts). */
  readonly readiness: Readiness;
  /** Draining once a stop began (gateway/process/drain.ts): /readyz answers 503. */
  readonly lifecycle: Lifecycle;
  /** Re-reads the policy files; a bad file keeps the running policy and says why. */
  reloadPolicy(): { ok: boolean; routes: number; error?: string };
  close(): Promise<void>;
}

/**
 * The policy files, refused (at start, or on reload) while a route names an upstream without a URL,
 * whether the settings declare it or not: all of those are listed at once, each with the variable to
 * set and the files and routes naming it (config/routed-upstreams.ts).
 */
function loadPolicy(settings: Settings): Policy {
  const policy = loadPolicies(settings.policiesDir);
  const missing = [...missingUpstreamUrls(policy.routes, settings.upstreams, settings.environment), ...missingResponseSigningKey(policy.routes, settings)];
  if (missing.length > 0) throw SettingsError.of(missing);
  return policy;
}

export async function buildGateway(settings: Settings, options: GatewayOptions = {}): Promise<Gateway> {
  if (!settings.adminToken) throw new Error('buildGateway needs GATEWAY_ADMIN_TOKEN');
  // The policy is validated before the store is opened: a bad file stops the start with nothing to clean up.
  const policy = new PolicyHolder(() => loadPolicy(settings));
  const metrics = new GatewayMetrics(BUILD);
  // Does not wait for the store to answer: the gateway starts (not ready) while Redis is down.
  const storeRuntime = await openStoreRuntime(settings, options, metrics);
  const { store, hasher, keys, readiness } = storeRuntime;
  const tokens = new AccessTokens(settings, keys);
  const dpop = new DpopProofs(
    settings,
    store,
    settings.dpopNonceSeconds === 0 ? undefined : new DpopNonces(() => hasher.derivedKey('dpop-nonce'), settings.dpopNonceSeconds),
  );
  const usage = new UsageRecorder(store);
  // Off: undefined, and the listeners and the proxy are built without any tracing work. A failed
  // export is logged by the public listener's logger (built below, before any span ends).
  const tracing = settings.tracing
    ? startTracing(settings.tracing, { version: BUILD.version, log: { warn: (fields, message) => publicApp.log.warn(fields, message) } })
    : undefined;

  const bodyBudget = new BodyBudget(settings.bodyBufferBudgetBytes);
  metrics.observeBodyBudget(bodyBudget);
  const publicApp = newFastify(settings, options, settings.maxBodyBytes, { tracing });
  // Before any route: the OpenAPI document is generated from the routes registered after it.
  await documentListener(publicApp, 'public', settings);
  // First hook: until ready, every public request gets 503 store_unavailable and nothing is forwarded.
  publicApp.addHook('onRequest', readiness.gate());
  observeRequests(publicApp, metrics);
  observeListenerLoad(publicApp, 'public', metrics);
  const addressOf = (request: FastifyRequest) => clientAddressOf(request, settings.trustedProxies);
  const oauth: OAuthDependencies = {
    clients: new ClientAuthenticator(
      store,
      hasher,
      new FailureThrottle(store, settings, 'oauth', 'failed attempts', 'count-failures'),
      settings.oauthErrorStyle,
      { algorithms: settings.clientAssertionAlgorithms, issuer: settings.issuer, profile: settings.oauthProfile },
    ),
    tokens,
    metrics,
    addressOf,
    vocabulary: () => policy.current.vocabulary,
    dpop,
    dpopRequired: settings.oauthProfile === 'fapi2',
    tokenEndpointUrl: tokenEndpointUrl(settings.issuer),
    usage,
  };
  await publicApp.register(async (scope) => {
    // The OAuth forms carry an id, a secret, a scope or a token: a few kilobytes, not a banking body.
    scope.addHook('onRoute', (route) => {
      route.bodyLimit = settings.oauthMaxBodyBytes;
    });
    scope.addHook('preParsing', countBodyAgainst(bodyBudget));
    await scope.register(formBody);
    registerTokenEndpoint(scope, oauth);
    registerTokenManagement(scope, { ...oauth, store });
  });
  registerDiscovery(publicApp, settings, keys, () => policy.current.vocabulary);
  // One set of checks for both modes: the proxy forwards what passes them, the decision listener answers for it.
  const checks: CheckDependencies = {
    settings,
    observe: metrics.stages,
    routes: () => policy.current,
    rateLimits: store,
    authenticators: {
      bearer: new BearerAuthenticator(tokens, store, dpop, new FapiRequestSignatures(store, settings, bodyBudget)),
      signature: new SignatureAuthenticator(store, settings, bodyBudget),
    },
    onAllowed: ({ principal, request }) => {
      if (principal.kind === 'service-account') usage.record(principal.account.accessId, request.clientAddress, principal.fingerprint);
      else usage.recordClient(principal.clientId);
    },
  };
  const responseSigning = registerResponseSigning(publicApp, settings, bodyBudget);
  const closeUpstreams = await registerProxy(publicApp, { ...checks, upstreams: upstreamsWithUrls(settings.upstreams), responseSigning, tracing });
  const decide = requestChecker(checks);
  const notReady = () => readiness.refusal();
  const decisionListener =
    settings.decisionPort === null ? undefined : new DecisionListener({ settings, check: decide, metrics, notReady, tracing, logStream: options.logStream });
  const decisionGrpc =
    settings.decisionGrpcPort === null
      ? undefined
      : new GrpcDecisionListener({ settings, check: decide, metrics, bodyBudget, notReady, logStream: options.logStream });

  const adminApp = newFastify(settings, options, settings.adminMaxBodyBytes);
  adminApp.addHook('preParsing', countBodyAgainst(bodyBudget));
  observeListenerLoad(adminApp, 'admin', metrics);
  metrics.observeSigningKeyAge(() => keys.activeKeyAgeSeconds());
  metrics.observeCredentials(() => store.countCredentials());
  const lifecycle = new Lifecycle();
  await registerAdmin(adminApp, { settings, store, hasher, keys, metrics, policy, lifecycle, readiness, publicApiDocument: () => listenerDocument(publicApp) });

  let closed = false;
  return {
    settings,
    publicApp,
    adminApp,
    decisionListener,
    decisionGrpc,
    store,
    policy,
    keys,
    metrics,
    lifecycle,
    readiness,
    reloadPolicy() {
      const result = policy.reload();
      metrics.policyReloads.inc({ result: result.ok ? 'ok' : 'rejected' });
      return result;
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([publicApp.close(), adminApp.close(), decisionListener?.close(), decisionGrpc?.close()]);
      await closeUpstreams();
      // The listeners are closed: every span has ended, and the last batch is sent (bounded).
      await tracing?.shutdown(TRACING_SHUTDOWN_MS);
      await usage.close();
      await storeRuntime.close();
    },
  };
}
