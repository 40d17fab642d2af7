// OpenTelemetry tracing, end to end: a gateway with tracing on exports to a real OTLP/HTTP receiver
// (test/helpers/otlp-receiver.ts) over http/json and http/protobuf. One SERVER span per request on
// the proxy and on the decision listener, carrying the decision (auth method, allow or deny, the
// refusal's code, the policy route, the client or service account id) and never a credential; a
// CLIENT span for the upstream call under it, whose id the upstream receives as its traceparent's
// parent. An incoming traceparent continues its trace; unsampled, nothing is exported but the
// upstream still gets a traceparent (flagged unsampled). The request's log line carries the ids.
// Spans are flushed by the gateway's close (no waiting on the batch timer).
import t, { type Test } from 'tap';
import { decisionConfig } from '../decision/decision-policies.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { listen } from '../helpers/http.js';
import { accessToken, createClient } from '../helpers/oauth.js';
import { SPAN_KIND, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';
import { createServiceAccount, signedInject } from '../helpers/signing.js';

const INCOMING_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const INCOMING_PARENT = '00f067aa0ba902b7';
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-(0[01])$/;

interface Traced {
  tg: TestGateway;
  receiver: OtlpReceiver;
  publicUrl: string;
  decisionUrl: string;
}

async function tracedGateway(t: Test, env: Record<string, string>): Promise<Traced> {
  const receiver = await startOtlpReceiver();
  const tg = await startTestGateway(t, {
    store: 'embedded',
    config: decisionConfig(t),
    env: { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.url, ...env },
  });
  // After the gateway's own teardown (registered first), which flushes its last spans here.
  t.teardown(() => receiver.close());
  const listening = await listen(tg);
  return { tg, receiver, publicUrl: listening.publicUrl, decisionUrl: listening.decisionUrl! };
}

/** The one span of a kind matching `attributes` (fails the test on none or several). */
function onlySpan(t: Test, spans: readonly ReceivedSpan[], kind: number, attributes: Record<string, unknown>): ReceivedSpan {
  const found = spans.filter((span) => span.kind === kind && Object.entries(attributes).every(([key, value]) => span.attributes[key] === value));
  t.equal(found.length, 1, `one ${kind === SPAN_KIND.server ? 'server' : 'client'} span with ${JSON.stringify(attributes)}`);
  return found[0]!;
}

function requestLine(tg: TestGateway, path: string, status: number): Record<string, unknown> | undefined {
  return tg.logs.lines
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .find((line) => line.msg === 'request' && line.path === path && line.status === status);
}

t.test('http/json: a server span per request with the decision, a client span for the upstream call, its traceparent upstream', async (t) => {
  const { tg, receiver, publicUrl, decisionUrl } = await tracedGateway(t, { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' });
  const client = await createClient(tg, ['sales']);
  const token = await accessToken(tg, client);

  const allowed = await fetch(`${publicUrl}/v1/sales/42`, { headers: { authorization: `Bearer ${token}` } });
  t.equal(allowed.status, 200);
  await allowed.text();
  const refused = await fetch(`${publicUrl}/v1/sales`, { headers: { authorization: 'Bearer not-a-token' } });
  t.equal(refused.status, 401);
  t.equal(((await refused.json()) as { error: string }).error, 'invalid_token');
  const decided = await fetch(`${decisionUrl}/envoy/v1/sales`, { headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': '192.0.2.10' } });
  t.equal(decided.status, 200);
  t.equal(decided.headers.get('x-gateway-client-id'), client.client_id);
  await tg.gateway.close();

  t.same(
    receiver.contentTypes.filter((type) => !type.startsWith('application/json')),
    [],
    'sent as JSON',
  );
  const spans = receiver.spans;
  const servers = spans.filter((span) => span.kind === SPAN_KIND.server);
  // The token request (the test's accessToken) is one of the public listener's requests too.
  t.equal(servers.length, 4, 'one server span per request: token, proxied, refused, decided');
  t.equal(new Set(servers.map((span) => span.traceId)).size, 4, 'each request its own trace');

  const proxied = onlySpan(t, spans, SPAN_KIND.server, { 'gateway.auth.decision': 'allow', 'gateway.listener': 'public' });
  t.equal(proxied.name, 'GET /v1/sales/{id}');
  t.match(proxied.attributes, {
    'http.request.method': 'GET',
    'http.route': '/v1/sales/{id}',
    'http.response.status_code': 200,
    'url.path': '/v1/sales/42',
    'gateway.auth.method': 'bearer',
    'gateway.route': 'public:GET /v1/sales/{id}',
    'gateway.client_id': client.client_id,
  });
  t.equal(proxied.parentSpanId, '', 'a trace started at the gateway');
  t.equal(proxied.resource['service.name'], 'access-gateway');

  const upstreamCall = onlySpan(t, spans, SPAN_KIND.client, {});
  t.equal(upstreamCall.traceId, proxied.traceId, 'the client span is in the request trace');
  t.equal(upstreamCall.parentSpanId, proxied.spanId, 'a child of the server span');
  t.match(upstreamCall.attributes, {
    'http.request.method': 'GET',
    'http.response.status_code': 200,
    'gateway.upstream': 'public',
    'server.address': '127.0.0.1',
  });
  const received = tg.upstreams.public.received.at(-1)!.headers;
  t.equal(received.traceparent, `00-${proxied.traceId}-${upstreamCall.spanId}-01`, "the upstream's traceparent names the client span, sampled");

  const refusal = onlySpan(t, spans, SPAN_KIND.server, { 'gateway.auth.decision': 'deny' });
  t.match(refusal.attributes, {
    'http.response.status_code': 401,
    'gateway.auth.method': 'bearer',
    'gateway.auth.reason': 'invalid_token',
    'gateway.route': 'public:GET /v1/sales',
  });
  t.notOk('gateway.client_id' in refusal.attributes, 'a refused request names no client');
  t.equal(refusal.statusCode, 0, 'a 4xx is not a server error');

  const decision = onlySpan(t, spans, SPAN_KIND.server, { 'gateway.listener': 'decision' });
  t.match(decision.attributes, {
    'http.route': '/envoy/*',
    'http.response.status_code': 200,
    'gateway.auth.decision': 'allow',
    'gateway.auth.method': 'bearer',
    'gateway.client_id': client.client_id,
    'gateway.route': 'public:GET /v1/sales',
  });
  t.equal(spans.filter((span) => span.kind === SPAN_KIND.client).length, 1, 'only the proxied request called an upstream');

  const exported = JSON.stringify(spans);
  for (const secret of [token, client.client_secret, tg.adminToken, 'not-a-token']) t.notOk(exported.includes(secret), 'no token or secret in any span');

  const line = requestLine(tg, '/v1/sales/42', 200);
  t.match(line, { trace_id: proxied.traceId, span_id: proxied.spanId }, "the request's log line carries its trace and span ids");
  t.match(requestLine(tg, '/envoy/v1/sales', 200), { trace_id: decision.traceId, span_id: decision.spanId, listener: 'decision' });
});

t.test('http/protobuf: an incoming traceparent continues its trace; a signed request names its service account', async (t) => {
  const { tg, receiver, publicUrl } = await tracedGateway(t, { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf', OTEL_SERVICE_NAME: 'edge-gateway' });
  const client = await createClient(tg, ['sales']);
  const token = await accessToken(tg, client);
  const sa = await createServiceAccount(tg, { permissions: ['view_balance'] });

  const continued = await fetch(`${publicUrl}/v1/sales`, {
    headers: { authorization: `Bearer ${token}`, traceparent: `00-${INCOMING_TRACE}-${INCOMING_PARENT}-01`, tracestate: 'vendor=1' },
  });
  t.equal(continued.status, 200);
  await continued.text();
  const received = tg.upstreams.public.received.at(-1)!.headers;
  const signed = await signedInject(tg, sa, { method: 'GET', url: '/v1/balance' });
  t.equal(signed.statusCode, 200);
  await tg.gateway.close();

  t.ok(receiver.contentTypes.length > 0 && receiver.contentTypes.every((type) => type === 'application/x-protobuf'), 'sent as protobuf');
  const server = onlySpan(t, receiver.spans, SPAN_KIND.server, { 'gateway.route': 'public:GET /v1/sales' });
  t.equal(server.traceId, INCOMING_TRACE, 'the trace of the incoming traceparent');
  t.equal(server.parentSpanId, INCOMING_PARENT, "the caller's span is the parent");
  t.equal(server.resource['service.name'], 'edge-gateway');
  const upstreamCall = onlySpan(t, receiver.spans, SPAN_KIND.client, { 'gateway.upstream': 'public' });
  t.equal(upstreamCall.parentSpanId, server.spanId);
  t.equal(received.traceparent, `00-${INCOMING_TRACE}-${upstreamCall.spanId}-01`, "the gateway's span is the upstream's parent, not the client's");
  t.equal(received.tracestate, 'vendor=1', 'the tracestate travels with it');

  const signedSpan = onlySpan(t, receiver.spans, SPAN_KIND.server, { 'gateway.auth.method': 'signature' });
  t.match(signedSpan.attributes, { 'gateway.auth.decision': 'allow', 'gateway.service_account_id': sa.account.id, 'gateway.route': 'banking:GET /v1/balance' });
  const exported = JSON.stringify(receiver.spans);
  for (const secret of [token, sa.account.access_id]) t.notOk(exported.includes(secret), 'no token and no full Access ID in any span');
  t.notOk(/signature=|sig1=/.test(exported), 'no signature in any span');
});

t.test('unsampled: nothing is exported, and the upstream still gets a traceparent, flagged unsampled', async (t) => {
  const { tg, receiver, publicUrl } = await tracedGateway(t, { OTEL_TRACES_SAMPLER: 'always_off' });
  const client = await createClient(tg, ['sales']);
  const token = await accessToken(tg, client);
  tg.logs.lines.length = 0;

  for (const traceparent of [undefined, `00-${INCOMING_TRACE}-${INCOMING_PARENT}-01`]) {
    const response = await fetch(`${publicUrl}/v1/sales`, { headers: { authorization: `Bearer ${token}`, ...(traceparent ? { traceparent } : {}) } });
    t.equal(response.status, 200);
    await response.text();
    const sent = TRACEPARENT.exec(String(tg.upstreams.public.received.at(-1)!.headers.traceparent));
    t.ok(sent, 'a traceparent reached the upstream');
    t.equal(sent?.[3], '00', 'flagged unsampled');
    if (traceparent) {
      t.equal(sent?.[1], INCOMING_TRACE, 'in the trace the client named');
      t.not(sent?.[2], INCOMING_PARENT, "naming the gateway's span, not the client's");
    }
    t.equal(requestLine(tg, '/v1/sales', 200)?.trace_id, sent?.[1], 'the log line carries the trace id');
    const raw = tg.logs.lines.find((line) => line.includes('"msg":"request"') && line.includes('"path":"/v1/sales"'));
    t.equal(raw?.match(/"trace_id"/g)?.length, 1, "once: the span's, not the traceparent's besides");
    tg.logs.lines.length = 0;
  }
  await tg.gateway.close();
  t.same(receiver.spans, [], 'no span exported');
  t.same(receiver.contentTypes, [], 'no export at all');
});

t.test('a ratio of 0: traces started at the gateway are not kept, a sampled caller is followed (parent-based)', async (t) => {
  const { tg, receiver, publicUrl } = await tracedGateway(t, { OTEL_TRACES_SAMPLER_ARG: '0' });
  const client = await createClient(tg, ['sales']);
  const token = await accessToken(tg, client);
  for (const traceparent of [undefined, `00-${INCOMING_TRACE}-${INCOMING_PARENT}-01`, `00-${'1'.repeat(32)}-${INCOMING_PARENT}-00`]) {
    const response = await fetch(`${publicUrl}/v1/sales`, { headers: { authorization: `Bearer ${token}`, ...(traceparent ? { traceparent } : {}) } });
    t.equal(response.status, 200);
    await response.text();
  }
  await tg.gateway.close();
  t.same(new Set(receiver.spans.map((span) => span.traceId)), new Set([INCOMING_TRACE]), 'only the sampled caller’s trace');
  t.equal(receiver.spans.length, 2, 'its server span and its client span');
});
