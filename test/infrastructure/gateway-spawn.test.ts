// The start tests' helper is bounded: a gateway that does not exit within the limit (here one that
// starts and serves) is killed, and the run fails saying so with what it wrote.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runGatewayToExit } from '../helpers/gateway-spawn.js';
import { until } from '../helpers/poll.js';

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

t.test('a gateway still running at the limit is killed and the run rejected', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-spawn-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  let caught: unknown;
  try {
    await runGatewayToExit({ GATEWAY_PORT: '0', GATEWAY_ADMIN_PORT: '0', GATEWAY_DATA_DIR: dataDir }, 3_000);
  } catch (error) {
    caught = error;
  }
  t.type(caught, Error);
  const message = (caught as Error | undefined)?.message ?? '';
  t.match(message, /^the gateway \(pid \d+\) did not exit within 3000 ms \(killed\); it wrote:\n/);
  const pid = Number(/pid (\d+)/.exec(message)?.[1]);
  await until(() => !isAlive(pid), `pid ${pid} gone`, 5_000);
  t.notOk(isAlive(pid), 'the process is gone');
});

t.test('a refused start resolves with its exit code, stdout and stderr', async (t) => {
  const { code, stderr, output } = await runGatewayToExit({ GATEWAY_PORT: 'eighty' });
  t.equal(code, 1);
  t.match(stderr, 'Invalid setting GATEWAY_PORT: must be a whole number');
  t.match(output, stderr);
});
