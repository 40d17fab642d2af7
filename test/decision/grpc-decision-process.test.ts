// The gRPC decision listener as `npm start` runs it: GATEWAY_DECISION_GRPC_PORT opens it on the
// decision host from the start, it answers Check and gRPC health, and a SIGTERM drains it like the
// other listeners: health turns NOT_SERVING at once, calls are still answered (the client reconnects
// after the GOAWAY), and the process exits 0 once they are.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { status as rpc } from '@grpc/grpc-js';
import t from 'tap';
import { authorizationClient } from '../../bench/grpc-authorization-client.js';
import { startEchoUpstream } from '../../gateway/examples/echo-upstream.js';
import { freePort, startGatewayProcess } from '../helpers/gateway-process.js';
import { until } from '../helpers/poll.js';
import { bearerToken, exitOf, logLines } from '../helpers/process-ops.js';
import { allowed, answered, envoyCheck, refused } from './envoy-check.js';

t.test('GATEWAY_DECISION_GRPC_PORT: Check and health from a started process, drained on SIGTERM', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-decision-grpc-'));
  const upstream = await startEchoUpstream('public');
  t.teardown(async () => {
    await upstream.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const adminToken = randomBytes(24).toString('hex');
  const grpcPort = await freePort();
  const gw = await startGatewayProcess(t, {
    GATEWAY_DATA_DIR: dir,
    GATEWAY_ADMIN_TOKEN: adminToken,
    PUBLIC_UPSTREAM: upstream.url,
    BANKING_UPSTREAM: upstream.url,
    GATEWAY_DECISION_GRPC_PORT: String(grpcPort),
    GATEWAY_TRUSTED_PROXIES: '127.0.0.1/32',
    GATEWAY_SHUTDOWN_DRAIN_SECONDS: '3',
  });
  t.match(gw.output(), new RegExp(`"decision_grpc":${grpcPort}`), 'the start line names the gRPC decision port');
  const client = authorizationClient(`127.0.0.1:${grpcPort}`);
  t.teardown(() => client.close());
  const token = await bearerToken(gw, adminToken, ['sales']);
  const ask = (authorization?: string) =>
    client.check(envoyCheck({ method: 'GET', path: '/v1/sales/7', host: 'api.test', headers: authorization ? { authorization } : {} }));

  t.equal(await client.health(), 'SERVING');
  const ok = allowed(t, await ask(`Bearer ${token}`));
  t.match(answered(ok.headers, 'x-gateway-client-id'), /^[0-9a-f-]{36}$/);
  refused(t, await ask(), 401, 'invalid_token', rpc.UNAUTHENTICATED);
  await until(() => logLines(gw).some((line) => line.listener === 'decision-grpc' && line.msg === 'request'), 'a log line per call', 5000);

  const exited = exitOf(gw);
  gw.child.kill('SIGTERM');
  await until(async () => (await client.health()) === 'NOT_SERVING', 'health NOT_SERVING once draining', 5000);
  t.equal(await client.health('envoy.service.auth.v3.Authorization'), 'NOT_SERVING');
  allowed(t, await ask(`Bearer ${token}`));
  t.same(await exited, { code: 0, signal: null }, 'the process exits 0');
  t.match(gw.output(), /stopped: every request was answered/);
  await t.rejects(ask(`Bearer ${token}`), { code: rpc.UNAVAILABLE }, 'nothing listens any more');
  t.equal(upstream.received.length, 0, 'a decision forwards nothing');
});
