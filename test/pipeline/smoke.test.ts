import t from 'tap';
import { startTestGateway } from '../helpers/gateway.js';
import { accessToken, createClient } from '../helpers/oauth.js';

t.test('a token with the right scope reaches the public upstream', async (t) => {
  const tg = await startTestGateway(t);
  const client = await createClient(tg, ['sales']);
  const token = await accessToken(tg, client);
  const response = await tg.gateway.publicApp.inject({ method: 'GET', url: '/v1/sales/42?x=1', headers: { authorization: `Bearer ${token}` } });
  t.equal(response.statusCode, 200, response.body);
  const echoed = response.json();
  t.equal(echoed.url, '/v1/sales/42?x=1');
  t.equal(echoed.headers['x-gateway-client-id'], client.client_id);
  t.equal(echoed.headers.authorization, undefined);
});
