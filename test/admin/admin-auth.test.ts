// The admin API requires the admin token: a missing or wrong one gets 401 admin_unauthorized.
import t from 'tap';
import { startTestGateway } from '../helpers/gateway.js';

t.test('every admin endpoint refuses a missing or wrong token', async (t) => {
  const tg = await startTestGateway(t);
  const endpoints: Array<[string, string]> = [
    ['GET', '/admin/v1/clients'],
    ['POST', '/admin/v1/clients'],
    ['GET', '/admin/v1/clients/00000000-0000-4000-8000-000000000000'],
    ['DELETE', '/admin/v1/clients/00000000-0000-4000-8000-000000000000'],
    ['POST', '/admin/v1/signing-keys/rotate'],
    ['GET', '/admin/v1/policy'],
  ];
  const wrong = [
    undefined,
    'Bearer wrong-token',
    `Bearer ${tg.adminToken}x`,
    `Bearer ${tg.adminToken.slice(0, -1)}`,
    `Basic ${Buffer.from(`admin:${tg.adminToken}`).toString('base64')}`,
    tg.adminToken,
    'Bearer',
  ];
  for (const [method, url] of endpoints) {
    for (const authorization of wrong) {
      const response = await tg.gateway.adminApp.inject({
        method: method as 'GET',
        url,
        headers: { ...(authorization ? { authorization } : {}), 'content-type': 'application/json' },
        ...(method === 'POST' ? { payload: JSON.stringify({ name: 'x', scopes: ['sales'] }) } : {}),
      });
      const label = `${method} ${url} with ${authorization === undefined ? 'no token' : JSON.stringify(authorization.slice(0, 12))}`;
      t.equal(response.statusCode, 401, label);
      const body = response.json<Record<string, string>>();
      t.equal(body.error, 'admin_unauthorized', label);
      t.same(Object.keys(body).sort(), ['error', 'message', 'request_id'], label);
      t.equal(response.headers['www-authenticate'], 'Bearer realm="gateway-admin"', label);
    }
  }
  const list = await tg.gateway.adminApp.inject({ method: 'GET', url: '/admin/v1/clients', headers: { authorization: `Bearer ${tg.adminToken}` } });
  t.equal(list.statusCode, 200, 'the right token is accepted');
  t.same(list.json(), { clients: [], next_cursor: null }, 'none of the refused creations happened');
});

t.test('the admin API is not on the public listener', async (t) => {
  const tg = await startTestGateway(t);
  const response = await tg.gateway.publicApp.inject({ method: 'GET', url: '/admin/v1/clients', headers: { authorization: `Bearer ${tg.adminToken}` } });
  t.equal(response.statusCode, 404);
  t.equal(response.json().error, 'route_not_found');
});
