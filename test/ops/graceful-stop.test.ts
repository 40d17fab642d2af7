// SIGTERM to a real gateway process starts a drain: /readyz answers 503 at once, a request on a
// keep-alive connection opened before the signal is still answered (with Connection: close, so the
// client reconnects elsewhere), on the public and the decision listener alike, new connections are
// still served, and the process exits 0 after it.
import { randomBytes } from 'node:crypto';
import { Agent } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startEchoUpstream } from '../../gateway/examples/echo-upstream.js';
import { freePort, startGatewayProcess } from '../helpers/gateway-process.js';
import { until } from '../helpers/poll.js';
import { bearerToken, exitOf, get, waitForLog } from '../helpers/process-ops.js';

const DRAIN_SECONDS = 6;

t.test('SIGTERM drains: kept-alive connections are answered with Connection: close, /readyz is 503, then the process exits 0', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-drain-'));
  const publicApi = await startEchoUpstream('public');
  const banking = await startEchoUpstream('banking');
  t.teardown(async () => {
    await publicApi.close();
    await banking.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const adminToken = randomBytes(24).toString('hex');
  const decisionPort = await freePort();
  const gw = await startGatewayProcess(t, {
    GATEWAY_DECISION_PORT: String(decisionPort),
    GATEWAY_TRUSTED_PROXIES: '127.0.0.1/32',
    GATEWAY_DATA_DIR: dir,
    GATEWAY_ADMIN_TOKEN: adminToken,
    PUBLIC_UPSTREAM: publicApi.url,
    BANKING_UPSTREAM: banking.url,
    GATEWAY_SHUTDOWN_DRAIN_SECONDS: String(DRAIN_SECONDS),
    GATEWAY_LOG_LEVEL: 'warn',
  });
  const auth = { authorization: `Bearer ${await bearerToken(gw, adminToken, ['sales'])}` };
  const url = `${gw.publicUrl}/v1/sales/7`;
  // An edge proxy asking the decision listener (Envoy's shape) on a connection it keeps.
  const decisionUrl = `http://127.0.0.1:${decisionPort}/envoy/v1/sales/7`;
  const asked = { ...auth, 'x-forwarded-for': '192.0.2.7' };

  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const edgeAgent = new Agent({ keepAlive: true, maxSockets: 1 });
  t.teardown(() => {
    agent.destroy();
    edgeAgent.destroy();
  });
  const before = await get(url, auth, agent);
  t.equal(before.status, 200);
  t.equal(before.headers.connection, 'keep-alive', 'before the signal the connection is kept alive');
  const decidedBefore = await get(decisionUrl, asked, edgeAgent);
  t.equal(decidedBefore.status, 200);
  t.equal(decidedBefore.headers.connection, 'keep-alive');

  const exited = exitOf(gw);
  const signalledAt = Date.now();
  gw.child.kill('SIGTERM');
  await until(async () => (await fetch(`${gw.adminUrl}/readyz`)).status === 503, '/readyz answers 503', 5000);
  const ready = await fetch(`${gw.adminUrl}/readyz`);
  t.equal(ready.status, 503, '/readyz is 503 during the drain');
  t.same(await ready.json(), { status: 'draining', store: 'embedded' });
  t.equal((await fetch(`${gw.adminUrl}/healthz`)).status, 200, '/healthz stays 200: the process is up');

  const during = await get(url, auth, agent);
  t.ok(during.reused, 'the request went out on the connection opened before SIGTERM');
  t.equal(during.status, 200, 'it is answered, not refused');
  t.equal(during.headers.connection, 'close', 'with Connection: close, so the client reconnects elsewhere');
  t.match(JSON.parse(during.body), { upstream: 'public', url: '/v1/sales/7' }, 'it reached the upstream');
  const decidedDuring = await get(decisionUrl, asked, edgeAgent);
  t.ok(decidedDuring.reused, 'the decision was asked on the connection the edge proxy kept');
  t.equal(decidedDuring.status, 200, 'it is decided, not refused');
  t.ok(decidedDuring.headers['x-gateway-client-id'], 'with the identity');
  t.equal(decidedDuring.headers.connection, 'close', 'and Connection: close, so the edge proxy reconnects elsewhere');

  const fresh = await get(url, auth, false);
  t.equal(fresh.status, 200, 'a new connection during the drain is still served');
  t.equal(fresh.headers.connection, 'close');

  const exit = await exited;
  t.same(exit, { code: 0, signal: null }, 'the process exits 0');
  t.ok(Date.now() - signalledAt >= DRAIN_SECONDS * 1000 - 100, 'not before the drain has run');
  await waitForLog(gw, 'stopped: every request was answered', 1, 1000);
});

t.test('a second SIGTERM during the drain stops at once', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-drain-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const gw = await startGatewayProcess(t, {
    GATEWAY_DATA_DIR: dir,
    GATEWAY_ADMIN_TOKEN: randomBytes(24).toString('hex'),
    GATEWAY_SHUTDOWN_DRAIN_SECONDS: '300',
    GATEWAY_LOG_LEVEL: 'info',
  });
  const exited = exitOf(gw, 20_000);
  gw.child.kill('SIGTERM');
  await waitForLog(gw, 'draining: /readyz answers 503 and connections close after their response');
  gw.child.kill('SIGTERM');
  t.same(await exited, { code: 1, signal: null }, 'it exits without waiting out a 300 s drain');
  await waitForLog(gw, 'stopping at once: requests still in flight are cut off', 1, 1000);
});
