// Upstream failures: unreachable -> 502 upstream_unavailable, no answer in time -> 504
// upstream_timeout, both with the JSON error body.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { startTestGateway } from '../helpers/gateway.js';
import { freePort } from '../helpers/gateway-process.js';
import { startSilentUpstream } from '../helpers/http.js';
import { accessToken, createClient } from '../helpers/oauth.js';

t.test('upstream down: 502 upstream_unavailable', async (t) => {
  const port = await freePort();
  const tg = await startTestGateway(t, { config: { public_upstream: `http://127.0.0.1:${port}` } });
  const client = await createClient(tg, ['sales']);
  const token = await accessToken(tg, client);
  const response = await tg.gateway.publicApp.inject({ method: 'GET', url: '/v1/sales', headers: { authorization: `Bearer ${token}` } });
  t.equal(response.statusCode, 502);
  t.match(response.headers['content-type'], 'application/json');
  t.same(response.json(), { error: 'upstream_unavailable', message: 'The upstream could not be reached.', request_id: response.json().request_id });
  t.match(response.json().request_id, /^[0-9a-f-]{36}$/);
});

t.test('upstream slow: 504 upstream_timeout', async (t) => {
  const silent = await startSilentUpstream(t);
  const tg = await startTestGateway(t, { config: { public_upstream: silent.url, upstream_timeout_ms: 300 } });
  const client = await createClient(tg, ['sales']);
  const token = await accessToken(tg, client);
  const response = await tg.gateway.publicApp.inject({ method: 'GET', url: '/v1/sales', headers: { authorization: `Bearer ${token}` } });
  t.equal(response.statusCode, 504);
  t.same(response.json(), { error: 'upstream_timeout', message: 'The upstream did not answer in time.', request_id: response.json().request_id });
  t.equal(silent.received, 1, 'the request did reach the slow upstream');
});

t.test('upstream failures are counted by outcome', async (t) => {
  const port = await freePort();
  const tg = await startTestGateway(t, { config: { public_upstream: `http://127.0.0.1:${port}` } });
  const client = await createClient(tg, ['sales']);
  const token = await accessToken(tg, client);
  await tg.gateway.publicApp.inject({ method: 'GET', url: '/v1/sales', headers: { authorization: `Bearer ${token}` } });
  const text = await tg.gateway.metrics.registry.getSingleMetricAsString('gateway_requests_total');
  t.match(text, 'gateway_requests_total{route="public:GET /v1/sales",outcome="upstream_unavailable",status_class="5xx"} 1');
});

t.test('an informational 103 from the upstream is not taken for its answer', async (t) => {
  const upstream = createServer((_request, response) => {
    response.writeEarlyHints({ link: '</style.css>; rel=preload; as=style' });
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"final":true}');
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => upstream.close(() => resolve())));
  const tg = await startTestGateway(t, { config: { public_upstream: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}` } });
  const token = await accessToken(tg, await createClient(tg, ['sales']));
  const response = await tg.gateway.publicApp.inject({ method: 'GET', url: '/v1/sales', headers: { authorization: `Bearer ${token}` } });
  t.equal(response.statusCode, 200);
  t.same(response.json(), { final: true });
});
