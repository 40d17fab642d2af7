// The tracing work of one proxied request alone, in one process, without the noise of sockets and
// other processes: the server span, its ids bound in a child logger (the gateway's own logger
// options), the client span and the upstream's traceparent, then (sampled) the attributes and the
// ends. Export is left out (an exporter that accepts at once): the OTLP encoding and POST come on
// top for a sampled request. Prints CPU µs per request with tracing off (the child logger alone, as
// every request makes it), always_off and always_on.
//   node dist/bench/tracing-work.js
import type { IncomingHttpHeaders } from 'node:http';
import { Writable } from 'node:stream';
import pino from 'pino';
import { loggerOptions } from '../gateway/http/logging.js';
import { startTracing } from '../gateway/tracing/tracing.js';
import type { TracesSampler } from '../gateway/tracing/tracing-settings.js';

const REQUESTS = 100_000;
const discard = new Writable({ write: (_chunk, _encoding, done) => done() });
const base = pino({ ...(loggerOptions('info', 'pino') as pino.LoggerOptions) }, discard);

async function perRequest(sampler: TracesSampler): Promise<number> {
  const tracing = startTracing(
    { endpoint: 'http://127.0.0.1:1/v1/traces', protocol: 'http/protobuf', sampler, ratio: 1, serviceName: 'bench' },
    { version: '0', log: { warn: () => undefined }, exporter: { export: (_spans, done) => done({ code: 0 }), shutdown: async () => undefined } },
  );
  const once = () => {
    const inbound: IncomingHttpHeaders = { host: 'api.test', authorization: 'Bearer x', 'user-agent': 'wrk' };
    const span = tracing.startServerSpan('GET', inbound);
    const { traceId, spanId } = span.spanContext();
    base.child({ request_id: 'r', trace_id: traceId, span_id: spanId });
    const upstream: IncomingHttpHeaders = { 'x-request-id': 'r', 'x-forwarded-proto': 'http' };
    const client = tracing.startClientSpan(span, 'GET');
    tracing.propagate(client, upstream);
    if (span.isRecording()) {
      span.setAttributes({ 'http.request.method': 'GET', 'url.path': '/v1/sales/42', 'url.scheme': 'http', 'gateway.listener': 'public' });
      span.setAttributes({
        'gateway.route': 'public:GET /v1/sales/{id}',
        'gateway.auth.method': 'bearer',
        'gateway.auth.decision': 'allow',
        'gateway.client_id': 'c',
      });
      span.updateName('GET /v1/sales/{id}');
      client.setAttributes({ 'http.request.method': 'GET', 'server.address': '127.0.0.1', 'server.port': 8080, 'gateway.upstream': 'public' });
      client.setAttribute('http.response.status_code', 200).end();
      span.setAttribute('http.response.status_code', 200).end();
    }
  };
  const result = measure(once);
  await tracing.shutdown(1000);
  return result;
}

function measure(once: () => void): number {
  for (let i = 0; i < REQUESTS / 5; i++) once();
  const before = process.cpuUsage();
  for (let i = 0; i < REQUESTS; i++) once();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / REQUESTS;
}

console.log(`off: ${measure(() => base.child({ request_id: 'r' })).toFixed(2)} CPU µs per request`);
for (const sampler of ['always_off', 'always_on'] as const) console.log(`${sampler}: ${(await perRequest(sampler)).toFixed(2)} CPU µs per request`);
