// The usage recorder: uses are kept in memory on the request path and written in one batch per
// flush interval (a short one here), and once more when it closes.
import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseAddress } from '../../gateway/net/cidr.js';
import { UsageRecorder } from '../../gateway/store/usage-recorder.js';
import type { ClientUse, CredentialStore, ServiceAccountUse } from '../../gateway/store/types.js';
import { until } from '../helpers/poll.js';

const FLUSH_MS = 20;

/** A store that only keeps the batches written to it. */
function batchStore(): { store: CredentialStore; batches: ServiceAccountUse[][]; clientBatches: ClientUse[][] } {
  const batches: ServiceAccountUse[][] = [];
  const clientBatches: ClientUse[][] = [];
  const store = {
    recordServiceAccountUse: async (uses: ServiceAccountUse[]) => void batches.push(uses),
    recordClientUse: async (uses: ClientUse[]) => void clientBatches.push(uses),
  } as unknown as CredentialStore;
  return { store, batches, clientBatches };
}

t.test('uses are written in one batch per interval, the latest use of each account', async (t) => {
  const { store, batches } = batchStore();
  const recorder = new UsageRecorder(store, FLUSH_MS);
  t.teardown(() => recorder.close());
  const before = Date.now();
  recorder.record('access-a', parseAddress('203.0.113.5'), 'SHA256:key');
  recorder.record('access-b', undefined, 'SHA256:key');
  recorder.record('access-a', parseAddress('2001:db8::1'), 'SHA256:key');
  t.same(batches, [], 'nothing is written when a use is recorded');

  await until(() => batches.length > 0, 'a flush after one interval');
  t.equal(batches.length, 1, 'one batch for all three uses');
  const [batch] = batches;
  t.same(
    batch!.map(({ accessId, ip }) => ({ accessId, ip })),
    [
      { accessId: 'access-a', ip: '2001:db8::1' },
      { accessId: 'access-b', ip: 'unknown' },
    ],
    'one entry per account, its latest use; no address is written as unknown',
  );
  for (const use of batch!) t.ok(Date.parse(use.at) >= before && Date.parse(use.at) <= Date.now(), `${use.accessId}: the time of the use, as an ISO string`);

  await sleep(FLUSH_MS * 3);
  t.equal(batches.length, 1, 'an interval with no use writes nothing');
  recorder.record('access-b', parseAddress('10.0.0.7'), 'SHA256:key');
  await until(() => batches.length > 1, 'the next use in the next batch');
  t.same(
    batches[1]!.map(({ accessId, ip }) => ({ accessId, ip })),
    [{ accessId: 'access-b', ip: '10.0.0.7' }],
    'only what was used since the last batch',
  );
});

t.test("clients' uses: one entry per client in the interval's batch, the latest use", async (t) => {
  const { store, batches, clientBatches } = batchStore();
  const recorder = new UsageRecorder(store, FLUSH_MS);
  t.teardown(() => recorder.close());
  const before = Date.now();
  for (const id of ['client-a', 'client-b', 'client-a']) recorder.recordClient(id);
  t.same(clientBatches, [], 'nothing is written when a use is recorded');
  await until(() => clientBatches.length > 0, 'a flush after one interval');
  t.same(
    clientBatches[0]!.map((use) => use.clientId),
    ['client-a', 'client-b'],
  );
  for (const use of clientBatches[0]!) t.ok(Date.parse(use.at) >= before && Date.parse(use.at) <= Date.now(), `${use.clientId}: the time, as an ISO string`);
  t.same(batches, [], 'no service account batch when none was used');
});

t.test('closing writes what is pending at once', async (t) => {
  const { store, batches } = batchStore();
  const recorder = new UsageRecorder(store);
  recorder.record('access-c', parseAddress('198.51.100.2'), 'SHA256:key');
  await recorder.close();
  t.same(
    batches.map((b) => b.map((u) => u.accessId)),
    [['access-c']],
    'written by close, not after the default interval',
  );
});

t.test('once closed, the timer writes nothing', async (t) => {
  const { store, batches } = batchStore();
  const recorder = new UsageRecorder(store, FLUSH_MS);
  await recorder.close();
  t.same(batches, [], 'nothing pending, nothing written');
  recorder.record('access-d', undefined, 'SHA256:key');
  await sleep(FLUSH_MS * 3);
  t.same(batches, [], 'no flush after three intervals');
  await recorder.close();
  t.same(
    batches.map((b) => b.map((u) => u.accessId)),
    [['access-d']],
    'a second close writes what came since',
  );
});
