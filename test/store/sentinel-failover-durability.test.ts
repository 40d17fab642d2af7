// Through a Sentinel failover, a change stays made: a master and its replica under three sentinels,
// the replica held behind (a proxy on its replication link), the master killed right after the
// writes and the replica promoted by SENTINEL FAILOVER. Here used nonces wait for the replica too
// (GATEWAY_REDIS_NONCE_FAILOVER=wait): held behind, each change and each signed request answers
// 503 change_not_confirmed, never 2xx (the request is not forwarded), and the promoted replica
// indeed lacks the changes. Once the old master rejoins, each change answers 2xx, and survives the
// next failover and the rejoin after.
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
import { startHeldSentinels } from '../helpers/failover-topology.js';
import { until } from '../helpers/poll.js';
import { adminInject, createServiceAccount } from '../helpers/signing.js';

const sentinels = await startHeldSentinels(t);

t.test('deletions, revocations, key removals, secret rolls, key retirements and used nonces through a Sentinel failover', async (t) => {
  const prefix = `durability:${randomBytes(6).toString('hex')}:`;
  const config = {
    redis_sentinels: sentinels.sentinels.map((s) => `${s.host}:${s.port}`).join(','),
    redis_sentinel_master: sentinels.masterName,
    redis_ack_timeout_ms: 1000,
    redis_command_timeout_ms: 1500,
    redis_nonce_failover: 'wait',
  };
  const tg = await startTestGateway(t, { redisPrefix: prefix, config });
  t.equal(tg.settings.redisAckReplicas, 1, 'Sentinel waits for one replica by default');
  const unconfirmed = await startTestGateway(t, { redisPrefix: prefix, config: { ...config, redis_ack_replicas: 0, redis_nonce_failover: 'off' } });
  await until(async () => (await tg.gateway.adminApp.inject({ method: 'GET', url: '/readyz' })).statusCode === 200, 'the gateway is ready', 15_000);
  const c = await prepareCredentials(tg);
  const control = await createServiceAccount(tg);
  const keys = changedKeys(prefix, c);
  const read = async () =>
    Object.fromEntries(await Promise.all(Object.entries(keys).map(async ([change, key]) => [change, await sentinels.onMaster(key, 'GET')] as const)));
  const used = signedBalance(c);
  t.equal((await sendSigned(tg, used)).statusCode, 200, 'a signed request before the failover, its nonce confirmed on the replica');
  await sentinels.inSync();
  const before = await read();
  const forwarded = () => tg.upstreams.banking.received.length;

  sentinels.hold();
  const held = await makeChanges(tg, c);
  for (const [change, answer] of Object.entries(held))
    t.same(answer, { status: 503, error: 'change_not_confirmed' }, `held behind: the ${change} answers 503 change_not_confirmed`);
  const forwardedBefore = forwarded();
  const unconfirmedNonce = await sendSigned(tg, signedBalance(c));
  t.match(
    { status: unconfirmedNonce.statusCode, error: unconfirmedNonce.json().error },
    { status: 503, error: 'change_not_confirmed' },
    'held behind: a signed request is refused, its nonce not confirmed...',
  );
  t.match(unconfirmedNonce.json().message, /not forwarded/, '...and says it was not forwarded');
  t.equal(forwarded(), forwardedBefore, 'nothing reached the upstream');
  t.equal(
    (await adminInject(unconfirmed, { method: 'DELETE', url: `/admin/v1/service-accounts/${control.account.id}` })).statusCode,
    204,
    'without waiting for a replica a deletion is answered done...',
  );
  const onMaster = await read();
  for (const change of Object.keys(keys)) t.not(onMaster[change], before[change], `the master applied the ${change}`);

  await sentinels.failover();
  sentinels.release();
  await storeServes(tg, c);
  const promoted = await read();
  for (const change of Object.keys(keys)) t.equal(promoted[change], before[change], `the promoted replica lacks the ${change}: the 503 was the truth`);
  t.equal(
    await sentinels.onMaster(`${prefix}sa:{${control.account.access_id}}`, 'EXISTS'),
    1,
    '...and the "deleted" account is back: the finding, without the setting',
  );
  const replayed = await sendSigned(tg, used);
  t.match(
    { status: replayed.statusCode, error: replayed.json().error },
    { status: 401, error: 'nonce_replayed' },
    'a confirmed nonce is refused as used on the new master',
  );

  await sentinels.rejoin();
  const confirmed = await makeChanges(tg, c);
  for (const [change, answer] of Object.entries(confirmed))
    t.ok(answer.status >= 200 && answer.status < 300, `repeated once the replica is back: the ${change} answers ${answer.status} ${answer.error ?? ''}`);
  await assertChangesHold(t, tg, c, [used], 'confirmed');
  const usedLater = await freshSignedRequestPasses(tg, c, 5000);

  await sentinels.failover();
  await storeServes(tg, c);
  await assertChangesHold(t, tg, c, [used, usedLater], 'after the second failover');
  await sentinels.rejoin();
  await assertChangesHold(t, tg, c, [used, usedLater], 'after the old master rejoined');
});
