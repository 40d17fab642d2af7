// GATEWAY_WORKERS: several processes serve the same ports. The primary replaces a worker that dies,
// relays SIGHUP to every worker and, on SIGTERM, exits once they have all drained. The embedded
// store, which lives in one process, refuses more than one worker.
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { REPO_ROOT } from '../helpers/gateway.js';
import { startGatewayProcess, type GatewayProcess } from '../helpers/gateway-process.js';
import { bearerToken, exitOf, get, logLines, sharedRedisDeployment, waitForLog } from '../helpers/process-ops.js';
import { deleteKeysWithPrefix, TEST_REDIS_URL, uniquePrefix } from '../helpers/redis.js';

/** Pids of the workers that logged their start, oldest first. */
function workerPids(gw: GatewayProcess): number[] {
  return logLines(gw)
    .filter((line) => line.msg === 'worker started')
    .map((line) => line.pid!);
}

/** Pids that answered a request (each request's log line carries the pid of its worker). */
function servingPids(gw: GatewayProcess): Set<number> {
  return new Set(
    logLines(gw)
      .filter((line) => line.msg === 'request')
      .map((line) => line.pid!),
  );
}

t.test('GATEWAY_WORKERS=2 on Redis: both serve, a killed worker is replaced, SIGHUP reloads each, SIGTERM drains all', async (t) => {
  const { env, adminToken, dir } = await sharedRedisDeployment(t, 'workers');
  const policies = join(dir, 'policies');
  cpSync(join(REPO_ROOT, 'policies'), policies, { recursive: true });
  const pidFile = join(dir, 'run', 'gateway.pid');
  const gw = await startGatewayProcess(t, {
    ...env,
    GATEWAY_WORKERS: '2',
    GATEWAY_POLICIES_DIR: policies,
    GATEWAY_PID_FILE: pidFile,
    GATEWAY_SHUTDOWN_DRAIN_SECONDS: '1',
    GATEWAY_LOG_LEVEL: 'info',
  });
  const primary = gw.child.pid!;
  t.equal(readFileSync(pidFile, 'utf8').trim(), String(primary), 'the pid file names the primary');
  const [first, second] = workerPids(gw);
  t.ok(first && second && first !== second && first !== primary && second !== primary, 'two workers started, each its own process');

  const auth = { authorization: `Bearer ${await bearerToken(gw, adminToken, ['sales', 'stats'])}` };
  /** `count` requests, each on a connection of its own (the primary hands connections out in turn). */
  const statuses = async (path: string, count: number) => {
    const result: number[] = [];
    for (let i = 0; i < count; i++) result.push((await get(`${gw.publicUrl}${path}`, auth, false)).status);
    return result;
  };
  t.same(await statuses('/v1/sales/1', 10), Array(10).fill(200), 'requests are served');
  t.ok(servingPids(gw).has(first!) && servingPids(gw).has(second!), 'by both workers');

  process.kill(first!, 'SIGKILL');
  const [crash] = await waitForLog(gw, 'worker exited; starting a replacement');
  t.match(crash, { pid: primary, worker_pid: first, signal: 'SIGKILL' }, 'the primary saw the worker die');
  // While the replacement starts, the other worker serves; then the replacement takes its share.
  const afterCrash: number[] = [];
  for (const deadline = Date.now() + 20_000; workerPids(gw).length < 3 && Date.now() < deadline;) afterCrash.push(...(await statuses('/v1/sales/2', 1)));
  const replacement = (await waitForLog(gw, 'worker started', 3))[2]!.pid!;
  t.notOk([first, second, primary].includes(replacement), 'the primary started a replacement worker');
  for (let i = 0; i < 40 && !servingPids(gw).has(replacement); i++) afterCrash.push(...(await statuses('/v1/sales/2', 1)));
  t.ok(servingPids(gw).has(replacement), 'the replacement serves requests');
  t.same(
    afterCrash,
    afterCrash.map(() => 200),
    `requests keep succeeding (${afterCrash.length} after the crash)`,
  );

  t.same(await statuses('/v1/reports', 2), [404, 404], 'no /v1/reports route yet');
  const publicFile = join(policies, 'public.yaml');
  writeFileSync(publicFile, `${readFileSync(publicFile, 'utf8')}  - { method: GET, path: /v1/reports, scopes: [stats] }\n`);
  process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGHUP');
  const reloaded = await waitForLog(gw, 'policy reloaded', 2);
  t.same(new Set(reloaded.map((line) => line.pid)), new Set([second, replacement]), 'every worker reloaded the policy');
  t.same(await statuses('/v1/reports', 6), Array(6).fill(200), 'the new route is served by every worker');

  const exit = exitOf(gw);
  process.kill(primary, 'SIGTERM');
  t.same(await exit, { code: 0, signal: null }, 'SIGTERM: the primary exits 0');
  const drained = logLines(gw).filter((line) => line.msg === 'stopped: every request was answered');
  t.same(new Set(drained.map((line) => line.pid)), new Set([second, replacement]), 'after every worker drained');
  t.match(gw.output(), /"msg":"gateway stopped: every worker has exited"/);
});

t.test('Ctrl-C (SIGINT to the whole process group) is one stop: every worker drains once, exit 0', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-workers-'));
  const prefix = uniquePrefix('gw-workers');
  t.teardown(async () => {
    await deleteKeysWithPrefix(prefix);
    rmSync(dir, { recursive: true, force: true });
  });
  const env = { GATEWAY_WORKERS: '2', REDIS_URL: TEST_REDIS_URL, GATEWAY_REDIS_KEY_PREFIX: prefix, GATEWAY_DATA_DIR: dir, GATEWAY_SHUTDOWN_DRAIN_SECONDS: '1' };
  const gw = await startGatewayProcess(t, { ...env, GATEWAY_ADMIN_TOKEN: randomBytes(24).toString('hex') }, { detached: true });
  const exit = exitOf(gw);
  // The signal and the primary's drain order reach each worker in either order.
  process.kill(-gw.child.pid!, 'SIGINT');
  t.same(await exit, { code: 0, signal: null });
  t.equal(logLines(gw).filter((line) => line.msg === 'stopped: every request was answered').length, 2, 'both workers drained');
  t.notMatch(gw.output(), /stopping at once/);
});

t.test('the embedded store refuses more than one worker', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-workers-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  await t.rejects(
    startGatewayProcess(t, { GATEWAY_WORKERS: '2', GATEWAY_DATA_DIR: dir, GATEWAY_ADMIN_TOKEN: randomBytes(24).toString('hex') }),
    /gateway exited with 1:[\s\S]*Invalid setting GATEWAY_WORKERS: 2 workers cannot share the embedded store \(it lives in one process\): set REDIS_URL, or GATEWAY_WORKERS=1/,
  );
});
