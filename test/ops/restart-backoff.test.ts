// A worker that keeps dying soon after its start is restarted ever more slowly (a crash loop must
// not spin); one that ran for a while is replaced at once.
import t from 'tap';
import { RestartBackoff, STABLE_AFTER_MS } from '../../gateway/process/restart-backoff.js';

t.test('quick deaths double the wait up to a ceiling; a stable run resets it', async (t) => {
  const backoff = new RestartBackoff();
  const delays = Array.from({ length: 10 }, () => backoff.exited(100));
  t.same(delays, [250, 500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
  t.equal(backoff.exited(STABLE_AFTER_MS), 0, 'a worker that ran for a while is replaced at once');
  t.equal(backoff.exited(100), 250, 'and the next quick death starts the sequence again');
});
