// A gateway process started while its Redis is down stays up (no crash loop): /healthz 200, /readyz
// 503 naming what is missing, every public request 503 store_unavailable and nothing forwarded.
// Once Redis starts it becomes ready by itself and serves tokens and signed requests.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import t from 'tap';
import { startEchoUpstream } from '../../gateway/examples/echo-upstream.js';
import { signRequest, sshPublicKeyLine } from '../../gateway/signing/index.js';
import { startGatewayProcess } from '../helpers/gateway-process.js';
import { until } from '../helpers/poll.js';
import { startRedisServer } from '../helpers/redis-server.js';

t.test('started with Redis down: up, not ready, 503; ready by itself once Redis starts', async (t) => {
  const redis = await startRedisServer(t, { started: false });
  const publicApi = await startEchoUpstream('public');
  const banking = await startEchoUpstream('banking');
  t.teardown(async () => {
    await publicApi.close();
    await banking.close();
  });
  const adminToken = randomBytes(24).toString('hex');
  const gateway = await startGatewayProcess(t, {
    REDIS_URL: redis.url,
    GATEWAY_ADMIN_TOKEN: adminToken,
    PUBLIC_UPSTREAM: publicApi.url,
    BANKING_UPSTREAM: banking.url,
    GATEWAY_DATA_DIR: mkdtempSync(join(tmpdir(), 'gw-down-')),
  });
  const admin = { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' };

  t.equal((await fetch(`${gateway.adminUrl}/healthz`)).status, 200, 'the process is up');
  const notReady = await fetch(`${gateway.adminUrl}/readyz`);
  t.equal(notReady.status, 503);
  t.match(await notReady.json(), {
    status: 'unavailable',
    error: 'store_unavailable',
    missing: ['store', 'redis_persistence', 'client_secret_hash_key', 'signing_keys'],
  });
  const routed = await fetch(`${gateway.publicUrl}/v1/sales/1`, { headers: { authorization: 'Bearer x.y.z' } });
  t.equal(routed.status, 503);
  t.match(await routed.json(), { error: 'store_unavailable' });
  const token = await fetch(`${gateway.publicUrl}/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'client_id=a&client_secret=b',
  });
  t.equal(token.status, 503);
  t.match(await token.json(), { error: 'store_unavailable' });
  t.equal((await fetch(`${gateway.adminUrl}/admin/v1/clients`, { headers: admin })).status, 503, 'the admin API too');
  t.equal(publicApi.received.length + banking.received.length, 0, 'nothing forwarded');
  t.equal(gateway.child.exitCode, null, 'still running');

  const started = performance.now();
  await redis.start();
  await until(async () => (await fetch(`${gateway.adminUrl}/readyz`)).status === 200, 'ready once Redis answers', 15_000);
  t.comment(`time to ready after Redis started: ${(performance.now() - started).toFixed(0)} ms`);

  const created = await fetch(`${gateway.adminUrl}/admin/v1/clients`, {
    method: 'POST',
    headers: admin,
    body: JSON.stringify({ name: 'late', scopes: ['sales'] }),
  });
  t.equal(created.status, 201);
  const client = (await created.json()) as { client_id: string; client_secret: string };
  const issued = await fetch(`${gateway.publicUrl}/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: client.client_id, client_secret: client.client_secret }).toString(),
  });
  t.equal(issued.status, 200, 'a token is issued');
  const { access_token: accessToken } = (await issued.json()) as { access_token: string };
  t.equal(
    (await fetch(`${gateway.publicUrl}/v1/sales/1`, { headers: { authorization: `Bearer ${accessToken}` } })).status,
    200,
    'a Bearer request is forwarded',
  );

  const { privateKey } = generateKeyPairSync('ed25519');
  const account = await fetch(`${gateway.adminUrl}/admin/v1/service-accounts`, {
    method: 'POST',
    headers: admin,
    body: JSON.stringify({ description: 'late', public_key: sshPublicKeyLine(privateKey), permissions: ['view_balance'] }),
  });
  t.equal(account.status, 201);
  const { access_id: accessId } = (await account.json()) as { access_id: string };
  const url = `${gateway.publicUrl}/v1/balance`;
  t.equal((await fetch(url, { headers: signRequest({ method: 'GET', url, accessId, privateKey }) })).status, 200, 'a signed request is forwarded');

  const log = gateway.output();
  t.match(log, /"reason":"[^"]+","msg":"credential store unreachable at start/, 'the outage at start is logged, with its cause');
  t.match(log, /"outage_ms":\d+/, 'and its end, with its duration');
  t.match(log, /appendonly no and save .*keeps credentials in memory only/, 'the Redis without persistence is warned about');
  t.notMatch(log, /"stack"/, 'no stack traces');
});
