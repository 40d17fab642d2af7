// Through the admin API and gatewayctl: a service account that no list shows (its index entries
// gone, as after a failover) is still found and deleted by id or by Access ID; `gatewayctl store
// repair` lists every record again; and a gateway repairs the indexes by itself at start.
import { Redis } from 'ioredis';
import t from 'tap';
import { RedisKeys } from '../../gateway/store/redis-keys.js';
import { RedisCredentialStore } from '../../gateway/store/redis-store.js';
import type { StoreRepairView } from '../../gateway/admin/store-routes.js';
import { runCli } from '../helpers/cli.js';
import { startTestGateway } from '../helpers/gateway.js';
import { listen } from '../helpers/http.js';
import { until } from '../helpers/poll.js';
import { deleteKeysWithPrefix, TEST_REDIS_URL, uniquePrefix } from '../helpers/redis.js';
import { adminInject, createServiceAccount, signedInject } from '../helpers/signing.js';
import { clientRecord, serviceAccountRecord } from '../store/contract.js';

const redis = new Redis(TEST_REDIS_URL);
t.teardown(() => redis.disconnect());

t.test('unlisted accounts: shown and deleted by id or Access ID, listed again by gatewayctl store repair', async (t) => {
  const tg = await startTestGateway(t);
  // The gateway's own repair at start, done before this test takes the indexes away.
  await until(() => tg.logs.text.includes('"event":"store_repair"'), 'the start-up repair ran', 10_000);
  const keys = new RedisKeys(tg.redisPrefix!);
  const env = { GATEWAY_ADMIN_URL: (await listen(tg)).adminUrl, GATEWAY_ADMIN_TOKEN: tg.adminToken };
  const [byId, byAccessId, kept] = [await createServiceAccount(tg), await createServiceAccount(tg), await createServiceAccount(tg)];
  const balance = (sa: typeof kept) => signedInject(tg, sa, { method: 'GET', url: '/v1/balance' });
  t.equal((await balance(byAccessId)).statusCode, 200);

  await redis.del(keys.accountIndex, keys.accessIdsById, keys.clientIndex);
  const list = async () =>
    (await adminInject(tg, { method: 'GET', url: '/admin/v1/service-accounts' }))
      .json<{ service_accounts: { id: string }[] }>()
      .service_accounts.map((a) => a.id);
  t.same(await list(), [], 'no list shows them');
  t.equal((await adminInject(tg, { method: 'GET', url: `/admin/v1/service-accounts/${byId.account.id}` })).statusCode, 200, 'shown by id');
  t.equal((await adminInject(tg, { method: 'DELETE', url: `/admin/v1/service-accounts/${byId.account.id}` })).statusCode, 204, 'deleted by id');
  t.equal((await balance(byId)).statusCode, 401, 'its signatures fail at once');

  const bad = await adminInject(tg, { method: 'DELETE', url: '/admin/v1/service-accounts?access_id=not-a-uuid' });
  t.equal(bad.statusCode, 400);
  t.match(bad.json().message, /access_id: must be a full Access ID/);
  t.equal((await adminInject(tg, { method: 'DELETE', url: '/admin/v1/service-accounts' })).statusCode, 400, 'access_id is required');
  const unknown = await runCli(['service-accounts', 'delete', '--access-id', '00000000-0000-4000-8000-000000000000'], env);
  t.equal(unknown.code, 1);
  t.match(unknown.stderr, /404 not_found: No service account has that Access ID/);
  const deleted = await runCli(['service-accounts', 'delete', '--access-id', byAccessId.account.access_id], env);
  t.equal(deleted.code, 0, deleted.stderr);
  t.match(deleted.stdout, /Deleted the service account behind that Access ID/);
  t.notMatch(deleted.stdout + deleted.stderr, byAccessId.account.access_id, 'the Access ID is not printed back');
  t.equal((await balance(byAccessId)).statusCode, 401, 'deleted by Access ID: its signatures fail');
  t.ok(
    tg.logs.lines.some((line) => line.includes('"audit":"credential.deleted"') && line.includes(byAccessId.account.id)),
    'audited with the account id',
  );
  t.notOk(tg.logs.text.includes(byAccessId.account.access_id), 'the full Access ID is never logged');
  const both = await runCli(['service-accounts', 'delete', kept.account.id, '--access-id', kept.account.access_id], env);
  t.equal(both.code, 2, 'an id and an Access ID together are refused');

  const repaired = await runCli(['store', 'repair', '--json'], env);
  t.equal(repaired.code, 0, repaired.stderr);
  const report = JSON.parse(repaired.stdout) as StoreRepairView;
  t.equal(report.store, 'redis');
  t.same(
    report.service_accounts,
    { records: 1, listed: 1, index_added: 1, index_removed: 0, pointers_added: 0, pointers_removed: 0 },
    'the one unlisted account is listed again',
  );
  t.same(await list(), [kept.account.id]);
  t.equal((await balance(kept)).statusCode, 200, 'and still works');
  const table = await runCli(['store', 'repair'], env);
  t.equal(table.code, 0, table.stderr);
  t.match(table.stdout, /^service accounts\s+1\s+1\s+0\s+0\s+\+0 -0$/m, 'a second run finds nothing to do');
  t.match(table.stdout, /Scanned 1 Redis server\(s\) of the redis store/);
  t.ok(
    tg.logs.lines.some((line) => line.includes('"audit":"store.repaired"')),
    'audited',
  );
});

t.test('the embedded store has nothing to repair: every count 0', async (t) => {
  const tg = await startTestGateway(t, { store: 'embedded' });
  const answer = await adminInject(tg, { method: 'POST', url: '/admin/v1/store/repair' });
  t.equal(answer.statusCode, 200);
  t.equal(answer.json<StoreRepairView>().store, 'embedded');
  t.equal(answer.json<StoreRepairView>().service_accounts.index_added, 0);
});

t.test('a gateway repairs the indexes at start: a record left unlisted is listed again, with one log line saying so', async (t) => {
  const prefix = uniquePrefix('gw');
  t.teardown(() => deleteKeysWithPrefix(prefix));
  const seed = new RedisCredentialStore(TEST_REDIS_URL, prefix);
  await seed.connect();
  const [account, client] = [serviceAccountRecord(), clientRecord()];
  await seed.createServiceAccount(account);
  await seed.createClient(client);
  await seed.close();
  const keys = new RedisKeys(prefix);
  await redis.del(keys.accountIndex, keys.clientIndex);
  await redis.zadd(keys.clientIndex, 0, 'a-create-that-never-completed');

  const tg = await startTestGateway(t, { redisPrefix: prefix });
  await until(() => tg.logs.lines.some((line) => line.includes('"event":"store_repair"')), 'the start-up repair ran', 10_000);
  const line = JSON.parse(tg.logs.lines.find((l) => l.includes('"event":"store_repair"'))!) as {
    level: number;
    msg: string;
    clients: StoreRepairView['clients'];
    service_accounts: StoreRepairView['service_accounts'];
  };
  t.equal(line.level, 40, 'a warning: something had to be repaired');
  t.match(line.msg, /indexes repaired at start/);
  t.same(line.clients, { records: 1, listed: 2, index_added: 1, index_removed: 1 });
  t.equal(line.service_accounts.index_added, 1);
  const listed = (await adminInject(tg, { method: 'GET', url: '/admin/v1/service-accounts' })).json<{ service_accounts: { id: string }[] }>();
  t.same(
    listed.service_accounts.map((a) => a.id),
    [account.id],
  );
  t.same(
    (await adminInject(tg, { method: 'GET', url: '/admin/v1/clients' })).json<{ clients: { client_id: string }[] }>().clients.map((c) => c.client_id),
    [client.clientId],
  );
});
