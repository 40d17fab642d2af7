// The decision listener as `npm start` runs it: GATEWAY_DECISION_PORT opens it on loopback beside the
// other listeners, it answers edge proxies from the start, and a SIGTERM drains it like the others
// (an edge proxy's kept-alive connection gets Connection: close and its answer, not a reset).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startEchoUpstream } from '../../gateway/examples/echo-upstream.js';
import { freePort, startGatewayProcess } from '../helpers/gateway-process.js';
import { until } from '../helpers/poll.js';
import { bearerToken, exitOf, get } from '../helpers/process-ops.js';

t.test('GATEWAY_DECISION_PORT: decisions from a started process, drained on SIGTERM', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-decision-'));
  const upstream = await startEchoUpstream('public');
  t.teardown(async () => {
    await upstream.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const adminToken = randomBytes(24).toString('hex');
  const decisionPort = await freePort();
  const gw = await startGatewayProcess(t, {
    GATEWAY_DATA_DIR: dir,
    GATEWAY_ADMIN_TOKEN: adminToken,
    PUBLIC_UPSTREAM: upstream.url,
    BANKING_UPSTREAM: upstream.url,
    GATEWAY_DECISION_PORT: String(decisionPort),
    GATEWAY_TRUSTED_PROXIES: '127.0.0.1/32',
    GATEWAY_SHUTDOWN_DRAIN_SECONDS: '3',
    GATEWAY_LOG_LEVEL: 'warn',
  });
  t.match(gw.output(), new RegExp(`"decision":${decisionPort}`), 'the start line names the decision port');
  const decide = `http://127.0.0.1:${decisionPort}/envoy/v1/sales/7`;
  const edge = { 'x-forwarded-for': '198.51.100.7', host: 'api.test' };
  const auth = { ...edge, authorization: `Bearer ${await bearerToken(gw, adminToken, ['sales'])}` };

  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  t.teardown(() => agent.destroy());
  const allowed = await get(decide, auth, agent);
  t.equal(allowed.status, 200);
  t.match(allowed.headers['x-gateway-client-id'], /^[0-9a-f-]{36}$/);
  t.equal(allowed.headers.connection, 'keep-alive');
  const refused = await get(decide, edge, agent);
  t.equal(refused.status, 401);
  t.equal(refused.headers['x-gateway-error'], 'invalid_token');
  t.equal(JSON.parse(refused.body).error, 'invalid_token');

  const exited = exitOf(gw);
  gw.child.kill('SIGTERM');
  await until(async () => (await fetch(`${gw.adminUrl}/readyz`)).status === 503, '/readyz answers 503', 5000);
  const during = await get(decide, auth, agent);
  t.ok(during.reused, 'asked on the connection opened before SIGTERM');
  t.equal(during.status, 200, 'answered, not refused');
  t.equal(during.headers.connection, 'close', 'with Connection: close, so the edge proxy reconnects elsewhere');
  t.same(await exited, { code: 0, signal: null }, 'the process exits 0');
  t.equal(upstream.received.length, 0, 'a decision forwards nothing');
});
