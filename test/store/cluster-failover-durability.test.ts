// Through a Redis Cluster failover, a change stays made: a real 3-master + 3-replica Cluster whose
// replicas the test holds behind (a proxy on each replication link), every master killed right
// after the writes and every replica promoted with CLUSTER FAILOVER TAKEOVER. Held behind, each
// security-relevant change answers 503 change_not_confirmed, never 2xx, and the promoted replicas
// indeed lack it; a used nonce they lack is refused by the failover fence. Once the old masters
// rejoin, each change answers 2xx, and survives the next loss of every master and the rejoin after.
import t from 'tap';
import { randomBytes } from 'node:crypto';
import { startTestGateway } from '../helpers/gateway.js';
import {
  assertChangesHold,
  changedKeys,
  freshSignedRequestPasses,
  makeChanges,
  prepareCredentials,
  sendSigned,
  signedBalance,
  storeServes,
} from '../helpers/failover-scenario.js';
import { startReplicatedCluster } from '../helpers/failover-topology.js';
import { until } from '../helpers/poll.js';
import { adminInject, createServiceAccount } from '../helpers/signing.js';

const cluster = await startReplicatedCluster(t);

t.test('deletions, revocations, key removals, secret rolls, key retirements and used nonces through the loss of every master', async (t) => {
  const prefix = `durability:${randomBytes(6).toString('hex')}:`;
  const config = { redis_cluster_nodes: cluster.nodes.map((n) => `${n.host}:${n.port}`).join(','), redis_ack_timeout_ms: 1000, redis_command_timeout_ms: 1500 };
  const tg = await startTestGateway(t, { redisPrefix: prefix, config });
  t.equal(tg.settings.redisAckReplicas, 1, 'a Cluster waits for one replica by default');
  t.equal(tg.settings.redisNonceFailover, 'fence', 'and fences used nonces');
  // The same store without waiting for replicas: the behaviour the finding describes.
  const unconfirmed = await startTestGateway(t, { redisPrefix: prefix, config: { ...config, redis_ack_replicas: 0 } });
  await until(async () => (await tg.gateway.adminApp.inject({ method: 'GET', url: '/readyz' })).statusCode === 200, 'the gateway is ready', 15_000);
  const c = await prepareCredentials(tg);
  const control = await createServiceAccount(tg);
  const keys = changedKeys(prefix, c);
  const read = async () =>
    Object.fromEntries(await Promise.all(Object.entries(keys).map(async ([change, key]) => [change, await cluster.onMaster(key, 'GET')] as const)));
  const used = signedBalance(c);
  t.equal((await sendSigned(tg, used)).statusCode, 200, 'a signed request before the failover');
  await cluster.inSync();
  const before = await read();

  // Every replica held behind: the masters take the changes, the replicas do not get them.
  cluster.hold();
  const held = await makeChanges(tg, c);
  for (const [change, answer] of Object.entries(held))
    t.same(answer, { status: 503, error: 'change_not_confirmed' }, `held behind: the ${change} answers 503 change_not_confirmed`);
  const lostNonce = signedBalance(c);
  t.equal((await sendSigned(tg, lostNonce)).statusCode, 200, 'a signed request consumes a nonce the replicas do not get');
  t.equal(
    (await adminInject(unconfirmed, { method: 'DELETE', url: `/admin/v1/service-accounts/${control.account.id}` })).statusCode,
    204,
    'without waiting for a replica a deletion is answered done...',
  );
  const onMasters = await read();
  for (const change of Object.keys(keys)) t.not(onMasters[change], before[change], `the masters applied the ${change}`);

  await cluster.failover();
  cluster.release();
  await storeServes(tg, c);
  const promoted = await read();
  for (const change of Object.keys(keys)) t.equal(promoted[change], before[change], `the promoted replica lacks the ${change}: the 503 was the truth`);
  t.equal(
    await cluster.onMaster(`${prefix}sa:{${control.account.access_id}}`, 'EXISTS'),
    1,
    '...and the "deleted" account is back: the finding, without the setting',
  );
  const fenced = await sendSigned(tg, lostNonce);
  t.match(
    { status: fenced.statusCode, error: fenced.json().error },
    { status: 503, error: 'signature_predates_failover' },
    'the used nonce the new master lacks: refused by the fence, not accepted again',
  );
  t.ok(Number(fenced.headers['retry-after']) >= 1 && Number(fenced.headers['retry-after']) <= 12, `with Retry-After ${fenced.headers['retry-after']}`);
  const replayed = await sendSigned(tg, used);
  t.match(
    { status: replayed.statusCode, error: replayed.json().error },
    { status: 401, error: 'nonce_replayed' },
    'the used nonce the replica received: refused as used',
  );

  // The old masters rejoin as replicas: the same changes, repeated, are confirmed.
  await cluster.rejoin();
  const confirmed = await makeChanges(tg, c);
  for (const [change, answer] of Object.entries(confirmed))
    t.ok(answer.status >= 200 && answer.status < 300, `repeated once the replicas are back: the ${change} answers ${answer.status} ${answer.error ?? ''}`);
  await assertChangesHold(t, tg, c, [used, lostNonce], 'confirmed');
  const usedLater = await freshSignedRequestPasses(tg, c);

  // Every master lost right after the writes: what was answered done is on the promoted replicas.
  await cluster.failover();
  await storeServes(tg, c);
  await assertChangesHold(t, tg, c, [used, lostNonce, usedLater], 'after the second failover');
  await cluster.rejoin();
  await assertChangesHold(t, tg, c, [used, lostNonce, usedLater], 'after the old masters rejoined');
});
