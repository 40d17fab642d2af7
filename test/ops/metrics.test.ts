// /metrics on the admin listener: prom-client text with request counts and durations by route and
// outcome, tokens issued and auth failures by reason; no label carries a client id.
import t from 'tap';
import { startTestGateway } from '../helpers/gateway.js';
import { accessToken, createClient, tokenRequest } from '../helpers/oauth.js';

t.test('metrics after a mix of requests', async (t) => {
  const tg = await startTestGateway(t);
  const client = await createClient(tg, ['sales']);
  const token = await accessToken(tg, client);
  const get = (url: string, authorization?: string) => tg.gateway.publicApp.inject({ method: 'GET', url, headers: authorization ? { authorization } : {} });
  t.equal((await get('/v1/sales/1', `Bearer ${token}`)).statusCode, 200);
  t.equal((await get('/v1/sales/2', `Bearer ${token}`)).statusCode, 200);
  t.equal((await get('/v1/stats', `Bearer ${token}`)).statusCode, 403);
  t.equal((await get('/v1/sales/1')).statusCode, 401);
  t.equal((await get('/v1/nowhere', `Bearer ${token}`)).statusCode, 404);
  t.equal((await tokenRequest(tg, { client_id: client.client_id, client_secret: 'wrong' })).statusCode, 401);

  const response = await tg.gateway.adminApp.inject({ method: 'GET', url: '/metrics' });
  t.equal(response.statusCode, 200);
  t.match(response.headers['content-type'], 'text/plain; version=0.0.4');
  const text = response.body;
  t.match(text, '# TYPE gateway_requests_total counter');
  t.match(text, 'gateway_requests_total{route="public:GET /v1/sales/{id}",outcome="forwarded"} 2');
  t.match(text, 'gateway_requests_total{route="public:GET /v1/stats",outcome="insufficient_scope"} 1');
  t.match(text, 'gateway_requests_total{route="public:GET /v1/sales/{id}",outcome="invalid_token"} 1');
  t.match(text, 'gateway_requests_total{route="unmatched",outcome="route_not_found"} 1');
  t.match(text, 'gateway_requests_total{route="/v1/oauth/token",outcome="forwarded"} 1');
  t.match(text, 'gateway_requests_total{route="/v1/oauth/token",outcome="auth_error"} 1');
  t.match(text, '# TYPE gateway_request_duration_seconds histogram');
  t.match(text, /gateway_request_duration_seconds_bucket\{le="\+Inf",route="public:GET \/v1\/sales\/\{id\}",outcome="forwarded"\} 2/);
  t.match(text, 'gateway_request_duration_seconds_count{route="public:GET /v1/sales/{id}",outcome="forwarded"} 2');
  t.match(text, 'gateway_tokens_issued_total 1');
  t.match(text, 'gateway_auth_failures_total{scheme="bearer",reason="invalid_token"} 1');
  t.match(text, 'gateway_auth_failures_total{scheme="bearer",reason="insufficient_scope"} 1');
  t.match(text, 'gateway_auth_failures_total{scheme="client",reason="auth_error"} 1');
  t.match(text, 'process_cpu_user_seconds_total', 'default process metrics');

  const labelValues = [...text.matchAll(/="([^"]*)"/g)].map((m) => m[1]!);
  t.ok(labelValues.length > 10);
  for (const value of labelValues) {
    t.notMatch(value, /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/, `label value ${JSON.stringify(value)} carries no id`);
  }
  t.notMatch(text, client.client_id);
  t.notMatch(text, token);

  const publicMetrics = await tg.gateway.publicApp.inject({ method: 'GET', url: '/metrics' });
  t.equal(publicMetrics.statusCode, 404, 'metrics are only on the private admin listener');
});

t.test('unmatched paths do not create a label per path', async (t) => {
  const tg = await startTestGateway(t);
  for (let i = 0; i < 5; i++) await tg.gateway.publicApp.inject({ method: 'GET', url: `/random/${i}` });
  await tg.gateway.publicApp.inject({ method: 'GET', url: '/v1/sales%2f1' });
  const text = (await tg.gateway.adminApp.inject({ method: 'GET', url: '/metrics' })).body;
  t.match(text, 'gateway_requests_total{route="unmatched",outcome="route_not_found"} 5');
  t.match(text, 'gateway_requests_total{route="unmatched",outcome="ambiguous_path"} 1');
  t.notMatch(text, '/random/');
});
