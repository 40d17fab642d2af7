// Fail closed: with the credential store unreachable, nothing is forwarded unchecked. Proxied
// requests get 503 store_unavailable and the upstream is not contacted.
import t from 'tap';
import { randomUUID } from 'node:crypto';
import { startTestGateway } from '../helpers/gateway.js';
import { startTcpForwarder } from '../helpers/http.js';
import { goodClaims, signWithForeignKey } from '../helpers/jwt.js';
import { accessToken, createClient, tokenRequest } from '../helpers/oauth.js';
import { until } from '../helpers/poll.js';
import { TEST_REDIS, testRedisUrlVia } from '../helpers/redis.js';

t.test('Redis unreachable: 503 store_unavailable, upstream untouched', async (t) => {
  const forwarder = await startTcpForwarder(t, TEST_REDIS.port, TEST_REDIS.host);
  const tg = await startTestGateway(t, { config: { redis_url: testRedisUrlVia(forwarder.port) } });
  const client = await createClient(tg, ['sales']);
  const token = await accessToken(tg, client);
  const get = (authorization: string) => tg.gateway.publicApp.inject({ method: 'GET', url: '/v1/sales', headers: { authorization } });
  t.equal((await get(`Bearer ${token}`)).statusCode, 200, 'control: forwarded while Redis is up');

  await forwarder.cut();
  // Known to the instance, the token may be answered from memory for at most the lease
  // (GATEWAY_REDIS_CACHE_LEASE_MS) once Redis is gone: no change can be answered meanwhile.
  const failedAfterMs = await until(async () => (await get(`Bearer ${token}`)).statusCode === 503, 'the cached token is refused', 2000);
  t.ok(failedAfterMs <= tg.settings.redisCacheLeaseMs + 300, `503 after ${failedAfterMs} ms (lease ${tg.settings.redisCacheLeaseMs} ms)`);
  const forwardedBefore = tg.upstreams.public.received.length;

  const response = await get(`Bearer ${token}`);
  t.equal(response.statusCode, 503, 'a token verified before (and cached) is checked against the store once the lease is out');
  t.same(response.json(), {
    error: 'store_unavailable',
    message: 'The credential store cannot be reached; the request was not forwarded.',
    request_id: response.json().request_id,
  });
  const fresh = await get(`Bearer ${await signWithForeignKey(goodClaims(tg, client.client_id, 'sales'), randomUUID())}`);
  t.equal(fresh.statusCode, 503, 'an unknown kid needs the store to look up keys: 503, not a guess');

  const tokenResponse = await tokenRequest(tg, { client_id: client.client_id, client_secret: client.client_secret });
  t.equal(tokenResponse.statusCode, 503);
  t.equal(tokenResponse.json().error, 'store_unavailable');
  t.equal(tokenResponse.headers['cache-control'], 'no-store');

  const adminList = await tg.gateway.adminApp.inject({ method: 'GET', url: '/admin/v1/clients', headers: { authorization: `Bearer ${tg.adminToken}` } });
  t.equal(adminList.statusCode, 503);
  t.equal(adminList.json().error, 'store_unavailable');

  t.equal(tg.upstreams.public.received.length, forwardedBefore, 'nothing reached the upstream while the store was down');
  const metrics = await tg.gateway.metrics.registry.getSingleMetricAsString('gateway_requests_total');
  const refused = /gateway_requests_total\{route="public:GET \/v1\/sales",outcome="store_unavailable",status_class="5xx"\} (\d+)/.exec(metrics);
  t.ok(Number(refused?.[1]) >= 3, `the refusals are counted (${refused?.[1]}: the polling ones, then two)`);
});
