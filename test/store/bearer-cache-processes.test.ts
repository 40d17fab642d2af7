// The revocation bound across processes: two gateways on one Redis, each answering Bearer requests
// from memory (GATEWAY_REDIS_CACHE_LEASE_MS, default 100). A deletion or revocation answered by one
// is refused by the other on its very next request; an instance cut off from Redis (its traffic
// held, so its heartbeat goes unanswered) stops using its cache within the lease and answers 503,
// never the deleted client's 200.
import t from 'tap';
import { startGatewayProcess, type GatewayProcess } from '../helpers/gateway-process.js';
import { startHoldingProxy } from '../helpers/holding-proxy.js';
import { sharedRedisDeployment } from '../helpers/process-ops.js';
import { TEST_REDIS, testRedisUrlVia } from '../helpers/redis.js';
import { tempDir } from '../helpers/redis-topology.js';

/** b's, so that its 503 comes soon; a's is the tests' default. */
const COMMAND_TIMEOUT_MS = 500;

t.test('a deletion or revocation answered on one instance is refused by the other at once; a cut-off instance fails closed', async (t) => {
  const deployment = await sharedRedisDeployment(t, 'bearer-cache');
  const proxy = await startHoldingProxy(t, TEST_REDIS.port, TEST_REDIS.host);
  const env = { ...deployment.env, GATEWAY_ISSUER: 'http://gateway.test', GATEWAY_LOG_LEVEL: 'warn' };
  const [a, b] = await Promise.all([
    startGatewayProcess(t, { ...env, GATEWAY_DATA_DIR: tempDir(t, 'gw-a') }),
    startGatewayProcess(t, {
      ...env,
      GATEWAY_DATA_DIR: tempDir(t, 'gw-b'),
      REDIS_URL: testRedisUrlVia(proxy.port),
      GATEWAY_REDIS_COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS),
    }),
  ]);
  const admin = { authorization: `Bearer ${deployment.adminToken}` };
  const sales = async (gateway: GatewayProcess, token: string) => {
    const response = await fetch(`${gateway.publicUrl}/v1/sales`, { headers: { authorization: `Bearer ${token}` } });
    return { status: response.status, error: ((await response.json()) as { error?: string }).error };
  };
  /** A client of a's with the sales scope, and a token of it. */
  const issue = async () => {
    const created = await fetch(`${a.adminUrl}/admin/v1/clients`, {
      method: 'POST',
      headers: { ...admin, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'cache test', scopes: ['sales'] }),
    });
    const client = (await created.json()) as { client_id: string; client_secret: string };
    const form = (fields: Record<string, string>) => ({
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: client.client_id, client_secret: client.client_secret, ...fields }),
    });
    const token = ((await (await fetch(`${a.publicUrl}/v1/oauth/token`, form({}))).json()) as { access_token: string }).access_token;
    return {
      token,
      delete: () => fetch(`${a.adminUrl}/admin/v1/clients/${client.client_id}`, { method: 'DELETE', headers: admin }),
      revoke: () => fetch(`${a.publicUrl}/v1/oauth/revoke`, form({ token })),
    };
  };

  for (const change of ['delete', 'revoke', 'delete', 'revoke'] as const) {
    const issued = await issue();
    for (let i = 0; i < 3; i++) t.equal((await sales(b, issued.token)).status, 200, `${change}: served (from memory after the first)`);
    t.equal((await issued[change]()).status, change === 'delete' ? 204 : 200, `${change}: answered by the first instance`);
    t.same(await sales(b, issued.token), { status: 401, error: 'invalid_token' }, `${change}: the other instance refuses the token on its very next request`);
  }

  // Cut off: b's traffic to Redis is held (its heartbeat goes unanswered); a deletes the client.
  const issued = await issue();
  const { token } = issued;
  for (let i = 0; i < 3; i++) t.equal((await sales(b, token)).status, 200);
  proxy.holdFrom();
  t.equal((await issued.delete()).status, 204);
  const started = performance.now();
  const cutOff = await sales(b, token);
  t.same(cutOff, { status: 503, error: 'store_unavailable' }, 'the cut-off instance fails closed instead of answering from memory');
  const elapsed = performance.now() - started;
  t.ok(elapsed < COMMAND_TIMEOUT_MS + 1000, `within ${elapsed.toFixed(0)} ms (its command timeout ${COMMAND_TIMEOUT_MS} ms)`);
  proxy.release();
  t.same(await sales(b, token), { status: 401, error: 'invalid_token' }, 'and refuses the deleted client once it reaches Redis again');
});
