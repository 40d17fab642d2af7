// Prometheus metrics. One registry per gateway instance (tests build many). Labels are bounded:
// route ids from the policy, error codes from the catalog; never a client or account id.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export class GatewayMetrics {
  readonly registry = new Registry();

  readonly requests = new Counter({
    name: 'gateway_requests_total',
    help: 'Requests on the public listener by policy route id and outcome (forwarded, or the error code).',
    labelNames: ['route', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly duration = new Histogram({
    name: 'gateway_request_duration_seconds',
    help: 'Time from request to response on the public listener, by route id and outcome.',
    labelNames: ['route', 'outcome'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [this.registry],
  });

  readonly tokensIssued = new Counter({
    name: 'gateway_tokens_issued_total',
    help: 'Access tokens issued by the token endpoint.',
    registers: [this.registry],
  });

  readonly authFailures = new Counter({
    name: 'gateway_auth_failures_total',
    help: 'Rejected credentials by scheme (bearer, signature, client) and reason (the error code).',
    labelNames: ['scheme', 'reason'] as const,
    registers: [this.registry],
  });

  readonly policyReloads = new Counter({
    name: 'gateway_policy_reloads_total',
    help: 'Policy reloads (SIGHUP) by result.',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
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
    new Gauge({ name: 'gateway_body_buffer_capacity_bytes', help: 'The body budget (GATEWAY_BODY_BUFFER_BUDGET_BYTES).', registers: [this.registry] }).set(budget.capacity);
  }
}
