// When Redis cannot be reached, every store operation fails with StoreUnavailableError (the
// pipeline turns it into 503) instead of hanging or queueing.
import t from 'tap';
import { RedisCredentialStore } from '../../gateway/store/redis-store.js';
import { openStore } from '../../gateway/store/open-store.js';
import { StoreUnavailableError } from '../../gateway/store/types.js';
import { startTcpForwarder } from '../helpers/http.js';
import { deleteKeysWithPrefix, TEST_REDIS_URL, uniquePrefix } from '../helpers/redis.js';
import { clientRecord } from './contract.js';

const redisPort = Number(new URL(TEST_REDIS_URL).port || 6379);

t.test('connecting to a closed port fails with StoreUnavailableError', async (t) => {
  const store = new RedisCredentialStore('redis://127.0.0.1:1', uniquePrefix('down'));
  t.teardown(() => store.close());
  await t.rejects(store.connect(), StoreUnavailableError);
  await t.rejects(store.ping(), StoreUnavailableError);
  await t.rejects(store.getClient('x'), StoreUnavailableError);
  await t.rejects(store.bearerState('x', 'y'), StoreUnavailableError);
  await t.rejects(store.signedRequestState('x', 'n', 300), StoreUnavailableError);
  await t.rejects(store.addFailure(['k'], 60), StoreUnavailableError);
  await t.rejects(store.recordServiceAccountUse([{ accessId: 'a', at: 'now', ip: '1.1.1.1' }]), StoreUnavailableError);
});

t.test('openStore refuses to start on an unreachable Redis', async (t) => {
  await t.rejects(openStore({ redisUrl: 'redis://127.0.0.1:1', redisKeyPrefix: uniquePrefix('down'), embeddedStorePath: undefined }), StoreUnavailableError);
});

t.test('a store whose Redis goes away fails its operations', async (t) => {
  const prefix = uniquePrefix('down');
  const forwarder = await startTcpForwarder(t, redisPort);
  const store = new RedisCredentialStore(`redis://127.0.0.1:${forwarder.port}`, prefix);
  await store.connect();
  t.teardown(async () => {
    await store.close();
    await deleteKeysWithPrefix(prefix);
  });
  const client = clientRecord();
  t.equal(await store.createClient(client), true);
  await forwarder.cut();
  await t.rejects(store.getClient(client.clientId), StoreUnavailableError);
  await t.rejects(store.bearerState(client.clientId, 'j'), StoreUnavailableError);
  await t.rejects(store.ping(), StoreUnavailableError);
  await t.rejects(store.compareAndSetMeta('m', null, 'v'), StoreUnavailableError);
});
