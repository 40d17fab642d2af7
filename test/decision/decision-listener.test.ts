// The decision listener as a server (gateway/decision/decision-listener.ts), over real sockets:
// what the other listeners get from Fastify and their hooks, it does itself: the timeouts, the
// routes and methods it answers, a caller that leaves before the answer, and its stop.
import fc from 'fast-check';
import t, { type Test } from 'tap';
import { CONVENTION_LIST } from '../../gateway/decision/conventions.js';
import { decisionHandler, routeOf } from '../../gateway/decision/decision-exchange.js';
import { listenerLogger } from '../../gateway/http/logging.js';
import { GatewayMetrics } from '../../gateway/metrics/metrics.js';
import { parseCidrList } from '../../gateway/net/cidr.js';
import type { RequestChecker } from '../../gateway/pipeline/pipeline.js';
import type { Verdict } from '../../gateway/pipeline/verdict.js';
import inject from 'light-my-request';
import { LogCapture } from '../helpers/log-capture.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { listen, partialRequest, rawRequest, requestHead, type PartialExchange } from '../helpers/http.js';
import { until } from '../helpers/poll.js';
import { holds } from '../helpers/property.js';
import { BANKING_HOST, createServiceAccount, signedHeaders } from '../helpers/signing.js';
import { decisionConfig } from './decision-policies.js';

interface Line {
  msg?: string;
  [field: string]: unknown;
}

t.test('a request target is routed to the convention whose prefix it starts with, then its end, a query or a path', async (t) => {
  t.match(routeOf('/envoy'), { convention: { name: 'envoy' }, pattern: '/envoy' });
  t.match(routeOf('/nginx?x=1'), { convention: { name: 'nginx' }, pattern: '/nginx' });
  t.match(routeOf('/envoy/v1/sales?a=b'), { convention: { name: 'envoy' }, pattern: '/envoy/*' });
  t.match(routeOf('/traefik/'), { convention: { name: 'traefik' }, pattern: '/traefik/*' });
  for (const off of ['/envoyx', '/nginx-a', '//envoy', '/Envoy', '', '/', 'envoy', '/%65nvoy']) t.equal(routeOf(off), undefined, off);
  holds(
    t,
    fc.property(fc.constantFrom(...CONVENTION_LIST.map((c) => c.prefix), '/other'), fc.string({ maxLength: 20 }), (prefix, rest) => {
      const url = prefix + rest;
      const route = routeOf(url);
      const expected = CONVENTION_LIST.find((c) => url.startsWith(c.prefix) && (rest === '' || rest[0] === '/' || rest[0] === '?'));
      return expected === undefined
        ? route === undefined
        : route?.convention === expected && route.pattern === (rest === '' || rest[0] === '?' ? prefix : `${prefix}/*`);
    }),
    500,
  );
});

t.test('off its routes and methods: a catalog error, with the request id and the code in headers', async (t) => {
  const tg = await startTestGateway(t, { store: 'embedded', config: decisionConfig(t) });
  const { decisionPort } = await listen(tg);
  const off = await rawRequest(decisionPort!, 'GET', '/envoyx/v1/sales', { 'x-forwarded-for': '192.0.2.1' });
  t.equal(off.status, 400);
  t.match(JSON.parse(off.body), { error: 'decision_request_invalid', message: /answers under \/nginx, \/envoy, \/traefik, \/caddy only/ });
  t.equal(off.headers['x-gateway-error'], 'decision_request_invalid');
  t.equal(off.headers['x-request-id'], (JSON.parse(off.body) as { request_id: string }).request_id);
  const trace = await rawRequest(decisionPort!, 'TRACE', '/envoy/v1/sales', { 'x-forwarded-for': '192.0.2.1' });
  t.equal(trace.status, 404);
  t.match(JSON.parse(trace.body), { error: 'route_not_found' });
  t.equal(trace.headers['content-type'], 'application/json; charset=utf-8');
});

t.test('headers not received within headers_timeout_ms: 408 request_timeout, connection closed', async (t) => {
  const tg = await startTestGateway(t, { store: 'embedded', config: decisionConfig(t, { request_timeout_ms: 400, headers_timeout_ms: 300 }) });
  const { decisionPort } = await listen(tg);
  const exchange = partialRequest(decisionPort!, 'GET /envoy/v1/sales HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-For: 192.0.2.1\r\n', '', 5000);
  const response = await exchange.response;
  t.equal(response.status, 408);
  t.match(JSON.parse(response.body), { error: 'request_timeout' });
  t.equal(response.headers.connection, 'close');
  t.ok(response.closedAfterMs < 3000, `closed after ${response.closedAfterMs} ms`);
});

async function metricsText(tg: TestGateway): Promise<string> {
  return (await tg.gateway.adminApp.inject({ method: 'GET', url: '/metrics' })).body;
}

/**
 * A gateway with a signed transfer asked as Traefik with forwardBody asks (the client's body is the
 * decision request's own) and half its body sent: in flight once its signature verified, the admit
 * stage waiting for the rest.
 */
async function transferHalfSent(t: Test): Promise<{ tg: TestGateway; exchange: PartialExchange; rest: string }> {
  const tg = await startTestGateway(t, { store: 'embedded', config: decisionConfig(t) });
  const { decisionPort } = await listen(tg);
  const sa = await createServiceAccount(tg, { permissions: ['initiate_payment'] });
  const body = JSON.stringify({ amount: 1, memo: 'x'.repeat(200) });
  const signed = signedHeaders(sa, { method: 'POST', url: '/v1/transfers', body, headers: { 'content-type': 'application/json' } });
  const head = requestHead('GET', '/traefik', {
    ...signed,
    host: 'gateway-decision',
    'x-forwarded-method': 'POST',
    'x-forwarded-uri': '/v1/transfers',
    'x-forwarded-host': BANKING_HOST,
    'x-forwarded-for': '192.0.2.1',
    'content-length': String(Buffer.byteLength(body)),
  });
  const exchange = partialRequest(decisionPort!, head, body.slice(0, 100), 5000);
  await until(async () => /gateway_requests_in_flight\{listener="decision"\} 1/.test(await metricsText(tg)), 'a decision in flight', 2000);
  return { tg, exchange, rest: body.slice(100) };
}

t.test('a caller that leaves before the answer: counted and logged as cancelled (499), nothing left in flight', async (t) => {
  const { tg, exchange } = await transferHalfSent(t);
  // No answer comes: the socket closes on our side.
  exchange.response.catch(() => undefined);
  exchange.destroy();
  const requestLine = () => tg.logs.lines.map((l) => JSON.parse(l) as Line).find((l) => l.msg === 'request' && l.path === '/traefik');
  await until(() => requestLine() !== undefined, 'the request line', 2000);
  t.match(requestLine(), { listener: 'decision', status: 499, outcome: 'cancelled', method: 'GET' });
  const metrics = await metricsText(tg);
  // The checks had not concluded: no route is known.
  t.match(metrics, /gateway_decisions_total\{convention="traefik",route="unmatched",outcome="cancelled"\} 1/);
  t.match(metrics, /gateway_requests_in_flight\{listener="decision"\} 0/);
});

t.test('while it closes: a request in flight is answered, with Connection: close, and then the listener is closed', async (t) => {
  const { tg, exchange, rest } = await transferHalfSent(t);
  let closed = false;
  const closing = tg.gateway.decisionListener!.close().then(() => (closed = true));
  t.notOk(tg.gateway.decisionListener!.server.listening, 'no longer accepting');
  exchange.write(rest);
  const response = await exchange.response;
  t.equal(response.status, 200, response.body);
  t.ok(response.headers['x-gateway-service-account-id'], 'the decision vouches for the account');
  t.equal(response.headers.connection, 'close');
  await closing;
  t.ok(closed, 'closed once the request in flight was answered');
});

/** The handler alone, around checks that fail in ways real ones should not. */
function handlerWith(check: RequestChecker): { handle: ReturnType<typeof decisionHandler>; logs: LogCapture } {
  const logs = new LogCapture();
  const handle = decisionHandler(
    {
      settings: { trustedProxies: parseCidrList(['127.0.0.1/32']) },
      check,
      metrics: new GatewayMetrics(),
      notReady: () => undefined,
      tracing: undefined,
      log: listenerLogger('info', 'pino', 'decision', logs),
    },
    () => false,
  );
  return { handle, logs };
}

const ENVOY_ASK = { method: 'GET' as const, url: '/envoy/v1/sales', headers: { 'x-forwarded-for': '192.0.2.1' } };

t.test('checks that throw: 500 internal_error (403 through nginx, the code in x-gateway-error), logged with the error', async (t) => {
  const { handle, logs } = handlerWith(() => Promise.reject(new Error('a bug in a check')));
  const envoy = await inject(handle, ENVOY_ASK);
  t.equal(envoy.statusCode, 500);
  t.match(JSON.parse(envoy.body), { error: 'internal_error' });
  t.notMatch(envoy.body, /a bug in a check/, 'the cause is not told to the caller');
  const nginx = await inject(handle, {
    method: 'GET',
    url: '/nginx',
    headers: { 'x-forwarded-for': '192.0.2.1', 'x-original-method': 'GET', 'x-original-uri': '/v1/sales', 'x-original-protocol': 'HTTP/1.1' },
  });
  t.equal(nginx.statusCode, 403);
  t.equal(nginx.headers['x-gateway-error'], 'internal_error');
  t.match(JSON.parse(logs.lines.find((l) => l.includes('decision failed'))!), { level: 50, code: 'internal_error', err: { message: 'a bug in a check' } });
});

t.test('an allowed answer Node cannot write (a header value it refuses): a refusal without the identity headers, never half an answer', async (t) => {
  const verdict = {
    allowed: true,
    request: { route: { id: 'public:GET /v1/sales', auth: 'bearer' }, clientAddress: undefined },
    principal: { kind: 'client', clientId: 'c1' },
    identityHeaders: { 'x-gateway-client-id': 'c1', 'x-gateway-scopes': 'sales\r\nx-injected: 1' },
    responseFields: {},
    body: undefined,
  } as unknown as Verdict;
  const { handle, logs } = handlerWith(() => Promise.resolve(verdict));
  const response = await inject(handle, ENVOY_ASK);
  t.equal(response.statusCode, 500);
  t.match(JSON.parse(response.body), { error: 'internal_error' });
  t.equal(response.headers['x-gateway-client-id'], undefined);
  t.equal(response.headers['x-injected'], undefined);
  t.ok(logs.lines.some((l) => l.includes('decision failed')));
});
