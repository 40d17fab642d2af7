// /healthz (the process is up) and /readyz (the credential store answers) on the admin listener.
import t from 'tap';
import { startTestGateway } from '../helpers/gateway.js';
import { startTcpForwarder } from '../helpers/http.js';
import { TEST_REDIS, testRedisUrlVia } from '../helpers/redis.js';

t.test('healthz and readyz with Redis', async (t) => {
  const tg = await startTestGateway(t);
  const health = await tg.gateway.adminApp.inject({ method: 'GET', url: '/healthz' });
  t.equal(health.statusCode, 200);
  t.same(health.json(), { status: 'ok' });
  const ready = await tg.gateway.adminApp.inject({ method: 'GET', url: '/readyz' });
  t.equal(ready.statusCode, 200);
  t.same(ready.json(), { status: 'ready', store: 'redis' });
});

t.test('readyz with the embedded store', async (t) => {
  const tg = await startTestGateway(t, { store: 'embedded' });
  const ready = await tg.gateway.adminApp.inject({ method: 'GET', url: '/readyz' });
  t.equal(ready.statusCode, 200);
  t.same(ready.json(), { status: 'ready', store: 'embedded' });
});

t.test('readyz is 503 while Redis is unreachable; healthz stays 200', async (t) => {
  const forwarder = await startTcpForwarder(t, TEST_REDIS.port, TEST_REDIS.host);
  const tg = await startTestGateway(t, { config: { redis_url: testRedisUrlVia(forwarder.port) } });
  t.equal((await tg.gateway.adminApp.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
  await forwarder.cut();
  const ready = await tg.gateway.adminApp.inject({ method: 'GET', url: '/readyz' });
  t.equal(ready.statusCode, 503);
  t.same(
    ready.json(),
    { status: 'unavailable', store: 'redis', error: 'store_unavailable', missing: ['store'], details: { store: ready.json().details.store } },
    'says what is missing',
  );
  t.match(ready.json().details.store, /\S/, 'and why');
  const health = await tg.gateway.adminApp.inject({ method: 'GET', url: '/healthz' });
  t.equal(health.statusCode, 200);
});
