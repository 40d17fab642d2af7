// GATEWAY_SHUTDOWN_DRAIN_SECONDS, GATEWAY_WORKERS and GATEWAY_PID_FILE are validated with the other
// settings: a bad value stops the start with a message naming it.
import { availableParallelism } from 'node:os';
import t from 'tap';
import { settingsFrom } from '../../gateway/config/settings.js';

const redis = { REDIS_URL: 'redis://127.0.0.1:6379' };

t.test('defaults: a 5 s drain, one worker, no pid file', async (t) => {
  const settings = settingsFrom({}, {}, '/srv/gateway');
  t.equal(settings.shutdownDrainSeconds, 5);
  t.equal(settings.workers, 1);
  t.equal(settings.pidFile, undefined);
});

t.test('GATEWAY_SHUTDOWN_DRAIN_SECONDS is whole seconds from 0 to 300', async (t) => {
  t.equal(settingsFrom({}, { GATEWAY_SHUTDOWN_DRAIN_SECONDS: '0' }).shutdownDrainSeconds, 0);
  t.equal(settingsFrom({ shutdown_drain_seconds: 30 }, {}).shutdownDrainSeconds, 30);
  for (const bad of ['-1', '2.5', 'five', '301']) {
    t.throws(() => settingsFrom({}, { GATEWAY_SHUTDOWN_DRAIN_SECONDS: bad }), /Invalid setting GATEWAY_SHUTDOWN_DRAIN_SECONDS: must be/, bad);
  }
});

t.test('GATEWAY_WORKERS is a count or auto, and more than one needs Redis', async (t) => {
  t.equal(settingsFrom({}, { ...redis, GATEWAY_WORKERS: '3' }).workers, 3);
  t.equal(settingsFrom({}, { ...redis, GATEWAY_WORKERS: 'auto' }).workers, availableParallelism());
  t.equal(settingsFrom({}, { GATEWAY_WORKERS: '1' }).workers, 1, 'one worker is fine with the embedded store');
  for (const bad of ['0', 'many', '1.5', '257']) {
    t.throws(() => settingsFrom({}, { ...redis, GATEWAY_WORKERS: bad }), /Invalid setting GATEWAY_WORKERS: must be/, bad);
  }
  t.throws(() => settingsFrom({}, { GATEWAY_WORKERS: '2' }), {
    message: 'Invalid setting GATEWAY_WORKERS: 2 workers cannot share the embedded store (it lives in one process): set REDIS_URL, or GATEWAY_WORKERS=1',
  });
  t.throws(() => settingsFrom({ workers: 4 }, {}), /Invalid setting workers \(config\) \/ GATEWAY_WORKERS: 4 workers cannot share the embedded store/);
});

t.test('GATEWAY_PID_FILE is resolved against the working directory', async (t) => {
  t.equal(settingsFrom({}, { GATEWAY_PID_FILE: 'run/gateway.pid' }, '/srv/gateway').pidFile, '/srv/gateway/run/gateway.pid');
});
