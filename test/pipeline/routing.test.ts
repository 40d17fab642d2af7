// A request that matches no policy route gets 404 route_not_found and never reaches an upstream,
// whatever credential it carries.
import t from 'tap';
import { startTestGateway } from '../helpers/gateway.js';
import { accessToken, createClient } from '../helpers/oauth.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

t.test('no matching route: 404 route_not_found, upstreams untouched', async (t) => {
  const tg = await startTestGateway(t);
  const client = await createClient(tg, ['sales', 'stats', 'products', 'events', 'sales_refund', 'financial', 'affiliates', 'webhooks']);
  const token = await accessToken(tg, client);
  const cases: Array<[string, string]> = [
    ['GET', '/v1/unknown'],
    ['GET', '/'],
    ['POST', '/v1/sales'],
    ['PUT', '/v1/sales/1'],
    ['DELETE', '/v1/sales/1'],
    ['GET', '/v1/sales/1/refund'],
    ['GET', '/v1/sales/1/2'],
    ['GET', '/v2/sales'],
    ['GET', '/V1/SALES'],
    ['GET', '/v1/oauth/token'],
    ['GET', '/admin/v1/clients'],
    ['GET', '/metrics'],
    ['OPTIONS', '/v1/sales'],
  ];
  for (const [method, url] of cases) {
    for (const headers of [{ authorization: `Bearer ${token}` }, {}]) {
      const response = await tg.gateway.publicApp.inject({ method: method as 'GET', url, headers });
      t.equal(response.statusCode, 404, `${method} ${url}`);
      const body = response.json<Record<string, string>>();
      t.same(Object.keys(body).sort(), ['error', 'message', 'request_id']);
      t.equal(body.error, 'route_not_found');
      t.match(body.request_id, UUID);
    }
  }
  const response = await tg.gateway.publicApp.inject({ method: 'GET', url: '/v1/nothing-here' });
  t.same(response.json(), { error: 'route_not_found', message: 'No route matches GET /v1/nothing-here.', request_id: response.json().request_id });
  t.same(tg.upstreams.public.received, []);
  t.same(tg.upstreams.banking.received, []);
});

t.test('routes go to their own upstream', async (t) => {
  const tg = await startTestGateway(t);
  const client = await createClient(tg, ['sales']);
  const token = await accessToken(tg, client);
  const response = await tg.gateway.publicApp.inject({ method: 'GET', url: '/v1/sales', headers: { authorization: `Bearer ${token}` } });
  t.equal(response.statusCode, 200);
  t.equal(response.json().upstream, 'public');
  t.equal(tg.upstreams.banking.received.length, 0);
  // A banking route with a Bearer token is not a Bearer route: it never reaches either upstream.
  const banking = await tg.gateway.publicApp.inject({ method: 'GET', url: '/v1/balance', headers: { authorization: `Bearer ${token}` } });
  t.equal(banking.statusCode, 401);
  t.equal(tg.upstreams.banking.received.length, 0);
  t.equal(tg.upstreams.public.received.length, 1);
});
