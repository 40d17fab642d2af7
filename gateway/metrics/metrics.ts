// Prometheus metrics. One registry per gateway instance (tests build many). Labels are bounded:
// route ids from the policy, error codes from the catalog; never a client or account id. What each
// request updates is a cell metric (cells.ts: its label set resolved once, no label work per
// update); the rest, updated rarely or when scraped, are prom-client's own.
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { CellCounter, CellGauge, CellHistogram } from './cells.js';

const CREDENTIAL_COUNT_MAX_AGE_MS = 60_000;

const STATUS_CLASSES = ['0xx', '1xx', '2xx', '3xx', '4xx', '5xx'];

/** 2xx to 5xx: a bounded label, and what separates an upstream's 5xx from its 2xx among forwarded requests (no string built per request). */
export function statusClass(status: number): string {
  return STATUS_CLASSES[Math.floor(status / 100)] ?? 'other';
}

export class GatewayMetrics {
  readonly registry = new Registry();

  readonly requests = new CellCounter({
    name: 'gateway_requests_total',
    help: "Requests on the public listener by policy route id, outcome (forwarded, or the error code) and the status class of the answer (2xx to 5xx: a forwarded request's is the upstream's).",
    labelNames: ['route', 'outcome', 'status_class'] as const,
    registers: [this.registry],
  });

  readonly inFlight = new CellGauge({
    name: 'gateway_requests_in_flight',
    help: 'Requests received and not yet answered, by listener (public, decision, decision-grpc, admin).',
    labelNames: ['listener'] as const,
    registers: [this.registry],
  });

  readonly adminActions = new Counter({
    name: 'gateway_admin_actions_total',
    help: 'Changes asked of the admin API (every method but GET and HEAD), by action (method and route) and status class.',
    labelNames: ['action', 'status_class'] as const,
    registers: [this.registry],
  });

  readonly duration = new CellHistogram({
    name: 'gateway_request_duration_seconds',
    help: 'Time from request to response on the public listener, by route id and outcome.',
    labelNames: ['route', 'outcome'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [this.registry],
  });

  readonly decisions = new CellCounter({
    name: 'gateway_decisions_total',
    help: 'Decisions asked of the decision listeners by edge proxy convention (envoy-grpc: the gRPC listener), policy route id and outcome (allowed, the error code, or cancelled: the caller gave up before the answer, its route then unmatched).',
    labelNames: ['convention', 'route', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly decisionDuration = new CellHistogram({
    name: 'gateway_decision_duration_seconds',
    help: 'Time to answer a decision, by edge proxy convention and outcome.',
    labelNames: ['convention', 'outcome'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [this.registry],
  });

  readonly tokensIssued = new CellCounter({
    name: 'gateway_tokens_issued_total',
    help: 'Access tokens issued by the token endpoint.',
    registers: [this.registry],
  }).cell();

  readonly authFailures = new CellCounter({
    name: 'gateway_auth_failures_total',
    help: 'Rejected credentials by scheme (bearer, signature, client) and reason (the error code).',
    labelNames: ['scheme', 'reason'] as const,
    registers: [this.registry],
  });

  readonly rateLimited = new CellCounter({
    name: 'gateway_rate_limited_requests_total',
    help: 'Requests refused rate_limited by the rate limit of their policy route, by route id (429 from the proxy; a decision answers with the status its edge proxy needs).',
    labelNames: ['route'] as const,
    registers: [this.registry],
  });

  readonly policyReloads = new Counter({
    name: 'gateway_policy_reloads_total',
    help: 'Policy reloads (SIGHUP) by result.',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  /** Time spent in each stage of a proxied request: authentication, store round trips, upstream. */
  readonly stageDuration = new CellHistogram({
    name: 'gateway_stage_duration_seconds',
    help: 'Time spent per stage of a proxied request: authentication (credential checks, store included), store (each round trip), upstream (from forwarding to the end of the response).',
    labelNames: ['stage'] as const,
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [this.registry],
  });

  /** The stages' cells, resolved once. */
  readonly stages = {
    authentication: this.stageDuration.cell('authentication'),
    store: this.stageDuration.cell('store'),
    upstream: this.stageDuration.cell('upstream'),
  };

  constructor(build: { version: string } = { version: 'unknown' }) {
    collectDefaultMetrics({ register: this.registry });
    new Gauge({
      name: 'gateway_build_info',
      help: 'Always 1; the labels say which gateway build and Node.js version are running.',
      labelNames: ['version', 'node_version'] as const,
      registers: [this.registry],
    }).set({ version: build.version, node_version: process.version }, 1);
  }

  readonly storeOutages = new Counter({
    name: 'gateway_store_outages_total',
    help: 'Times the credential store went from answering to not answering (the circuit breaker opened).',
    registers: [this.registry],
  });

  /** Exports whether the credential store answers (its circuit breaker is closed): 1 up, 0 down. */
  observeStore(state: { readonly up: boolean }): void {
    new Gauge({
      name: 'gateway_store_up',
      help: 'Whether the credential store answers (1) or requests fail fast with 503 store_unavailable (0).',
      registers: [this.registry],
      collect() {
        this.set(state.up ? 1 : 0);
      },
    });
  }

  /** Exports, per Redis Cluster master, whether it answers (its own breaker is closed): 1 up, 0 down. */
  observeStoreNodes(nodes: { states(): readonly { node: string; up: boolean }[] }): void {
    new Gauge({
      name: 'gateway_store_node_up',
      help: 'Per Redis Cluster master (host:port): whether it answers (1) or the requests whose keys it holds fail fast with 503 store_unavailable (0).',
      labelNames: ['node'] as const,
      registers: [this.registry],
      collect() {
        // Only the masters of now: one that left the cluster map leaves the metric.
        this.reset();
        for (const state of nodes.states()) this.set({ node: state.node }, state.up ? 1 : 0);
      },
    });
  }

  /** Exports the connections a listener holds open, counted when scraped. */
  observeConnections(listener: string, count: () => Promise<number>): void {
    this.connections.labels(listener);
    this.connectionCounts.set(listener, count);
  }

  private readonly connectionCounts = new Map<string, () => Promise<number>>();
  private readonly connections = new Gauge({
    name: 'gateway_open_connections',
    help: 'Client connections open on each listener (public, decision, decision-grpc, admin).',
    labelNames: ['listener'] as const,
    registers: [this.registry],
    collect: async () => {
      for (const [listener, count] of this.connectionCounts) this.connections.set({ listener }, await count());
    },
  });

  /**
   * Exports the number of credentials of each kind: read when scraped, at most once a minute (never
   * per request); while the store cannot be read the last counts stay.
   */
  observeCredentials(read: () => Promise<{ clients: number; serviceAccounts: number }>, now: () => number = Date.now): void {
    let counts: { clients: number; serviceAccounts: number } | undefined;
    let readAt = Number.NEGATIVE_INFINITY;
    new Gauge({
      name: 'gateway_credentials',
      help: 'OAuth clients and service accounts in the credential store, by kind; read at most once a minute, when scraped.',
      labelNames: ['kind'] as const,
      registers: [this.registry],
      async collect() {
        if (now() - readAt >= CREDENTIAL_COUNT_MAX_AGE_MS) {
          readAt = now();
          counts = await read().catch(() => counts);
        }
        if (!counts) return;
        this.set({ kind: 'oauth_client' }, counts.clients);
        this.set({ kind: 'service_account' }, counts.serviceAccounts);
      },
    });
  }

  /** Exports how old the active JWT signing key is (undefined: unknown, as for a key file's keys). */
  observeSigningKeyAge(ageSeconds: () => number | undefined): void {
    new Gauge({
      name: 'gateway_jwt_signing_key_age_seconds',
      help: 'Age of the active JWT signing key (absent for keys from GATEWAY_JWT_SIGNING_KEY_FILE): alert on a key never rotated.',
      registers: [this.registry],
      collect() {
        const age = ageSeconds();
        if (age === undefined) this.reset();
        else this.set(age);
      },
    });
  }

  /** Exports what the body budget holds and may hold (gateway/http/body-budget.ts). */
  observeBodyBudget(budget: { readonly used: number; readonly capacity: number }): void {
    new Gauge({
      name: 'gateway_body_buffer_bytes',
      help: 'Request body bytes held in memory across all requests, against gateway_body_buffer_capacity_bytes.',
      registers: [this.registry],
      collect() {
        this.set(budget.used);
      },
    });
    new Gauge({ name: 'gateway_body_buffer_capacity_bytes', help: 'The body budget (GATEWAY_BODY_BUFFER_BUDGET_BYTES).', registers: [this.registry] }).set(
      budget.capacity,
    );
  }
}
