// A whole gateway on a master behind Sentinel, through a failover: signed requests succeed again
// after it (the time is measured and reported: the sentinels' switch, then the failover fence of
// gateway/store/failover-fence.ts, which refuses signatures made before the gateway met the new
// master plus the clock skew), accounts created before and after work, and a nonce used after the
// failover still blocks its replay.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestGateway } from '../helpers/gateway.js';
import { command, startSentinels, waitFor } from '../helpers/redis-topology.js';
import { createServiceAccount, signedHeaders, signedInject, type TestServiceAccount } from '../helpers/signing.js';

const topology = await startSentinels(t);

t.test('a signed route across SENTINEL FAILOVER', async (t) => {
  const tg = await startTestGateway(t, {
    config: {
      redis_sentinels: topology.sentinels.map((s) => `${s.host}:${s.port}`).join(','),
      redis_sentinel_master: topology.masterName,
    },
  });
  t.equal(tg.settings.redisUrl, undefined, 'no REDIS_URL: the sentinels are the only topology');
  const balance = (sa: TestServiceAccount) => signedInject(tg, sa, { method: 'GET', url: '/v1/balance' });

  let before: TestServiceAccount | undefined;
  await waitFor(
    'the gateway is ready and creates an account',
    async () => {
      before = await createServiceAccount(tg);
      return true;
    },
    10_000,
  );
  t.equal((await balance(before!)).statusCode, 200, 'the account created before the failover works');
  const accountKey = `${tg.redisPrefix}sa:{${before!.account.access_id}}`;
  await waitFor('the replica has the account', async () => (await command(topology.replica.port, 'EXISTS', accountKey)) === 1, 5000);

  const oldMaster = await topology.masterPort();
  t.equal(await command(topology.sentinelServers[0]!.port, 'SENTINEL', 'FAILOVER', topology.masterName), 'OK');
  const started = Date.now();
  const statuses = new Map<string, number>();
  let fencedAt: number | undefined;
  let switchedAt: number | undefined;
  let firstFailure: number | undefined;
  let recoveredAt: number | undefined;
  // Every 50 ms, at most 20 s: a signed request with a fresh nonce, until one is answered 200 whose
  // nonce the new master holds: served by it. (Until the gateway hears of the switch, the old
  // master, not yet a replica, still answers; Sentinel drops what it took then.)
  for (let attempt = 0; attempt < 400 && Date.now() - started < 20_000; attempt++) {
    const sentAt = Date.now();
    const nonce = randomUUID();
    const response = await signedInject(tg, before!, { method: 'GET', url: '/v1/balance', sign: { nonce } });
    const status = response.statusCode;
    const answer = status === 200 ? '200' : `${status} ${response.json().error}`;
    statuses.set(answer, (statuses.get(answer) ?? 0) + 1);
    if (answer === '503 signature_predates_failover') fencedAt ??= sentAt;
    if (status !== 200) firstFailure ??= sentAt;
    const master = await topology.masterPort();
    if (master !== oldMaster) switchedAt ??= Date.now();
    if (status === 200 && master !== oldMaster && (await command(master, 'EXISTS', `${accountKey}:nonce:${nonce}`)) === 1) {
      recoveredAt = Date.now();
      break;
    }
    await sleep(50);
  }
  t.ok(switchedAt, 'the sentinels promoted the replica');
  t.ok(recoveredAt, 'signed requests succeed again, on the new master');
  const outage = firstFailure === undefined ? 'no refused request seen' : `${recoveredAt! - firstFailure} ms from the first refused request`;
  t.comment(
    `signed requests succeed on the new master ${recoveredAt! - started} ms after SENTINEL FAILOVER ` +
      `(sentinels switched after ${switchedAt! - started} ms; outage ${outage}; the fence refused signatures for ${fencedAt === undefined ? 0 : recoveredAt! - fencedAt} ms); answers meanwhile: ${JSON.stringify(Object.fromEntries(statuses))}`,
  );
  t.ok(
    [...statuses.keys()].every((s) => ['200', '503 store_unavailable', '503 signature_predates_failover'].includes(s)),
    'meanwhile only 503 (fail closed), never another answer',
  );
  t.ok(fencedAt, 'the promoted master was met: signatures made before it were refused by the fence for a while');

  const after = await createServiceAccount(tg);
  t.equal((await balance(after)).statusCode, 200, 'an account created just after the failover works');
  t.equal((await balance(before!)).statusCode, 200, 'the account created before still works');

  const headers = signedHeaders(before!, { method: 'GET', url: '/v1/balance' });
  t.equal((await tg.gateway.publicApp.inject({ method: 'GET', url: '/v1/balance', headers })).statusCode, 200);
  const replay = await tg.gateway.publicApp.inject({ method: 'GET', url: '/v1/balance', headers });
  t.equal(replay.statusCode, 401, 'a nonce used after the failover blocks its replay');
  t.equal(replay.json().error, 'nonce_replayed');
  const newMaster = await topology.masterPort();
  t.equal(await command(newMaster, 'EXISTS', `${tg.redisPrefix}sa:{${after.account.access_id}}`), 1, 'the new account lives on the new master');
});
