// /metrics on the admin listener: prom-client text with request counts and durations by route and
// outcome, tokens issued and auth failures by reason; no label carries a client id.
import { Agent, get as httpGet } from 'node:http';
import type { AddressInfo } from 'node:net';
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
  t.match(text, 'gateway_requests_total{route="public:GET /v1/sales/{id}",outcome="forwarded",status_class="2xx"} 2');
  t.match(text, 'gateway_requests_total{route="public:GET /v1/stats",outcome="insufficient_scope",status_class="4xx"} 1');
  t.match(text, 'gateway_requests_total{route="public:GET /v1/sales/{id}",outcome="invalid_token",status_class="4xx"} 1');
  t.match(text, 'gateway_requests_total{route="unmatched",outcome="route_not_found",status_class="4xx"} 1');
  t.match(text, 'gateway_requests_total{route="/v1/oauth/token",outcome="forwarded",status_class="2xx"} 1');
  t.match(text, 'gateway_requests_total{route="/v1/oauth/token",outcome="auth_error",status_class="4xx"} 1');
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
  t.match(text, 'gateway_requests_total{route="unmatched",outcome="route_not_found",status_class="4xx"} 5');
  t.match(text, 'gateway_requests_total{route="unmatched",outcome="ambiguous_path",status_class="4xx"} 1');
  t.notMatch(text, '/random/');
});

t.test('what an SRE expects besides: an upstream 5xx by status class, load per listener, credentials, admin actions, the key age', async (t) => {
  const tg = await startTestGateway(t, { config: { decision_port: 0, trusted_proxies: ['127.0.0.1/32'] } });
  const client = await createClient(tg, ['sales']);
  await createClient(tg, ['sales']);
  const token = await accessToken(tg, client);
  await tg.gateway.publicApp.listen({ host: '127.0.0.1', port: 0 });
  const { port } = tg.gateway.publicApp.server.address() as AddressInfo;
  // A held keep-alive connection, and a request in flight while the metrics are read.
  const agent = new Agent({ keepAlive: true, maxSockets: 2 });
  t.teardown(() => agent.destroy());
  const held = await new Promise<number>((resolve) =>
    httpGet({ host: '127.0.0.1', port, path: '/v1/oauth/token', agent }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    }),
  );
  t.equal(held, 404, 'a request on a kept-alive connection');
  await tg.gateway.adminApp.inject({
    method: 'POST',
    url: `/admin/v1/clients/${client.client_id}/secret`,
    headers: { authorization: `Bearer ${tg.adminToken}` },
    payload: { grace_seconds: 0 },
  });
  await tg.gateway.adminApp.inject({
    method: 'DELETE',
    url: '/admin/v1/clients/00000000-0000-4000-8000-000000000000',
    headers: { authorization: `Bearer ${tg.adminToken}` },
  });
  t.equal((await tg.gateway.publicApp.inject({ method: 'GET', url: '/v1/sales', headers: { authorization: `Bearer ${token}` } })).statusCode, 200);

  const text = (await tg.gateway.adminApp.inject({ method: 'GET', url: '/metrics' })).body;
  t.match(text, 'gateway_requests_total{route="public:GET /v1/sales",outcome="forwarded",status_class="2xx"} 1');
  t.match(text, 'gateway_open_connections{listener="public"} 1', 'the held connection');
  t.match(text, 'gateway_open_connections{listener="decision"} 0');
  t.match(text, 'gateway_requests_in_flight{listener="admin"} 1', 'the scrape itself is in flight');
  t.match(text, 'gateway_requests_in_flight{listener="public"} 0');
  t.match(text, 'gateway_admin_actions_total{action="POST /admin/v1/clients/:client_id/secret",status_class="2xx"} 1');
  t.match(text, 'gateway_admin_actions_total{action="DELETE /admin/v1/clients/:client_id",status_class="4xx"} 1');
  t.match(text, /gateway_jwt_signing_key_age_seconds \d+(\.\d+)?\n/, 'the active key has an age');
  t.match(text, 'gateway_credentials{kind="oauth_client"} 2', 'read at the first scrape');
  t.match(text, 'gateway_credentials{kind="service_account"} 0');
  await createClient(tg, ['sales']);
  const again = (await tg.gateway.adminApp.inject({ method: 'GET', url: '/metrics' })).body;
  t.match(again, 'gateway_credentials{kind="oauth_client"} 2', 'and not read again within the minute');
});
