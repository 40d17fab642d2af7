// One Check call: who asks (only a trusted proxy may), whether the gateway is ready, what request is
// described, then the proxy's own checks (requestChecker) and the answer for their verdict. Every
// call ends within its deadline (GATEWAY_DECISION_GRPC_DEADLINE_MS, or just before Envoy's
// grpc-timeout when sooner), with a refusal if the checks have not concluded by then; and every
// call is observed as an HTTP decision is: gateway_decisions_total (convention envoy-grpc), the
// duration, auth failures, rate limits, the audit line of a refusal, and one log line.
import { randomUUID } from 'node:crypto';
import type { sendUnaryData, ServerUnaryCall } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { boundedCache } from '../../cache/bounded-cache.js';
import type { Settings } from '../../config/settings.js';
import { GatewayError } from '../../errors.js';
import { BodyHold, type BodyBudget } from '../../http/body-budget.js';
import { loggedAsFailure, toGatewayError } from '../../http/error-reply.js';
import { traceFields } from '../../http/logging.js';
import type { GatewayMetrics } from '../../metrics/metrics.js';
import { parsePeerAddress, type Address } from '../../net/cidr.js';
import { isTrustedProxy } from '../../net/client-ip.js';
import type { BodySource } from '../../pipeline/body-source.js';
import { recordDecision } from '../../pipeline/observe.js';
import type { RequestChecker } from '../../pipeline/pipeline.js';
import { NO_FIELDS, verdictLogFields, type ResponseFields, type Verdict } from '../../pipeline/verdict.js';
import { allowedAnswer, refusedAnswer } from './check-answer.js';
import type { CheckRequest, CheckResponse } from './check-messages.js';
import { describeCheck, type DescribedCheck } from './describe-check.js';

/** The listener label of its metrics and log lines. */
export const GRPC_DECISION_LISTENER = 'decision-grpc';
const CONVENTION = 'envoy-grpc';
const RPC = 'envoy.service.auth.v3.Authorization/Check';

export interface CheckCallDependencies {
  settings: Pick<Settings, 'trustedProxies' | 'decisionGrpcDeadlineMs'>;
  check: RequestChecker;
  metrics: GatewayMetrics;
  bodyBudget: BodyBudget;
  /** What a call is refused with while the gateway is not ready (Readiness.refusal); undefined once ready. */
  notReady: () => GatewayError | undefined;
  log: Logger;
}

/** The caller's address from grpc-js's peer string ("127.0.0.1:5000", "::1:5000"): the port is always last. */
export function callerAddress(peer: string): Address | undefined {
  return parsePeerAddress(peer.replace(/:\d+$/, ''));
}

/** How long before the caller's own deadline the refusal is sent, so that it arrives while the caller still waits. */
const CALLER_DEADLINE_MARGIN_MS = 20;

/**
 * Milliseconds the checks may take: the listener's deadline, or, when sooner, the caller's less a
 * margin (a tenth of it at most), so that Envoy receives decision_timeout with its body and
 * Retry-After rather than failing the call itself.
 */
function deadlineMs(call: ServerUnaryCall<CheckRequest, CheckResponse>, ceilingMs: number): number {
  const deadline = call.getDeadline();
  const left = (deadline instanceof Date ? deadline.getTime() : deadline) - Date.now();
  return Math.max(0, Math.min(ceilingMs, left - Math.min(CALLER_DEADLINE_MARGIN_MS, left / 10)));
}

/** The body Envoy sent, lent to the admit stage; its bytes count against the body budget from the moment it is read. */
function sentBody(bytes: Buffer | undefined, budget: BodyBudget, whenDone: (() => void)[]): BodySource {
  return {
    payload() {
      if (bytes === undefined) return undefined;
      const hold = new BodyHold(budget);
      whenDone.push(() => hold.releaseAll());
      hold.take(bytes.length);
      return bytes;
    },
    onFinished(release) {
      whenDone.push(release);
    },
  };
}

interface Observed {
  readonly described: DescribedCheck | undefined;
  readonly verdict: Verdict | undefined;
  readonly error: GatewayError | undefined;
  readonly response: CheckResponse | undefined;
}

export function checkCall(deps: CheckCallDependencies): (call: ServerUnaryCall<CheckRequest, CheckResponse>, callback: sendUnaryData<CheckResponse>) => void {
  const inFlight = deps.metrics.inFlight.cell(GRPC_DECISION_LISTENER);
  // A peer string is one connection, which carries many calls: parsed and judged once.
  const callers = boundedCache<string, { address: Address | undefined; trusted: boolean }>(1024);
  const callerOf = (peer: string) => {
    let known = callers.get(peer);
    if (!known) {
      const address = callerAddress(peer);
      callers.set(peer, (known = { address, trusted: isTrustedProxy(address, deps.settings.trustedProxies) }));
    }
    return known;
  };
  return (call, callback) => {
    const started = performance.now();
    const requestId = randomUUID();
    const peer = call.getPeer();
    // One child logger per call, made once the trace fields are known (or at the refusal before).
    const bindings: Record<string, string> = { request_id: requestId };
    let callLog: Logger | undefined;
    const log = () => (callLog ??= deps.log.child(bindings));
    let described: DescribedCheck | undefined;
    let verdict: Verdict | undefined;
    let settled = false;
    inFlight.inc();

    const observe = (outcome: Observed & { cancelled?: boolean }) => {
      const seconds = (performance.now() - started) / 1000;
      const { error, response } = outcome;
      // 499 for a call the caller gave up (no answer went out), as nginx logs a closed request.
      const status = outcome.cancelled ? 499 : (response?.denied_response?.status.code ?? (error ? error.status : 200));
      recordDecision(deps.metrics, log(), {
        convention: CONVENTION,
        verdict: outcome.verdict,
        code: error?.code,
        ...(outcome.cancelled ? { outcome: 'cancelled' } : {}),
        status,
        seconds,
      });
      const original = outcome.described?.original;
      log().info(
        {
          rpc: RPC,
          peer,
          method: original?.method ?? null,
          path: original?.url.split('?', 1)[0] ?? null,
          status,
          grpc_status: response?.status.code ?? null,
          duration_ms: Math.round(seconds * 10_000) / 10,
          outcome: outcome.cancelled ? 'cancelled' : (error?.code ?? 'ok'),
          ...(outcome.verdict ? verdictLogFields(outcome.verdict) : {}),
        },
        'request',
      );
    };
    const finish = (response: CheckResponse, error: GatewayError | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      inFlight.dec();
      if (error && loggedAsFailure(error)) log().error({ err: error.cause ?? error, code: error.code }, 'decision failed');
      // Envoy keeps the status; the base a refused signature was checked against is kept for an operator.
      if (error?.details.signature_base !== undefined) log().debug({ signature_base: error.details.signature_base }, 'signature base of a refused request');
      callback(null, response);
      observe({ described, verdict, error, response });
    };
    const refuse = (error: GatewayError, fields: ResponseFields = NO_FIELDS) => finish(refusedAnswer(error, requestId, fields), error);

    call.once('cancelled', () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      inFlight.dec();
      observe({ described, verdict, error: undefined, response: undefined, cancelled: true });
    });
    const timer = setTimeout(
      () => refuse(new GatewayError('decision_timeout', undefined, { headers: { 'retry-after': '1' } })),
      deadlineMs(call, deps.settings.decisionGrpcDeadlineMs),
    );

    const whenDone: (() => void)[] = [];
    void (async () => {
      try {
        const caller = callerOf(peer);
        if (!caller.trusted) throw new GatewayError('decision_caller_not_trusted');
        const notReady = deps.notReady();
        if (notReady) throw notReady;
        described = describeCheck(call.request);
        Object.assign(bindings, traceFields(described.original.headers.traceparent));
        verdict = await deps.check({
          original: described.original,
          peer: caller.address,
          body: sentBody(described.body, deps.bodyBudget, whenDone),
          log: log(),
        });
        if (verdict.allowed) finish(allowedAnswer(verdict, requestId, described.headerNames), undefined);
        else refuse(verdict.error, verdict.responseFields);
      } catch (error) {
        refuse(toGatewayError(error));
      } finally {
        for (const done of whenDone) done();
      }
    })();
  };
}
