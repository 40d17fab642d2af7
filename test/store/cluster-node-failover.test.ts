// One lost Redis Cluster master does not stop the others: a whole gateway on a 3-master +
// 3-replica Cluster, under steady signed traffic on accounts spread over every master, while one
// master hangs (SIGSTOP) and then another dies (SIGKILL), each until its replica is promoted.
// Requests whose keys live on the healthy masters keep succeeding (at least 95 %), every 503 comes
// within a second (the command timeout is 250 ms), the lost master's accounts work again on the
// promoted replica, and the metrics, readiness and logs name the node. The figures are printed.
import { setTimeout as sleep } from 'node:timers/promises';
import t, { type Test } from 'tap';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { until } from '../helpers/poll.js';
import { startReplicatedCluster } from '../helpers/replicated-cluster.js';
import { waitFor } from '../helpers/redis-topology.js';
import { adminInject, createServiceAccount, signedInject, type TestServiceAccount } from '../helpers/signing.js';

const NODE_TIMEOUT_MS = 2000;
const WORKERS = 4;
/** Each worker's pause between requests: about 4 x 40 requests a second in all. */
const PACE_MS = 25;
/** The traffic stops this long after the gateway moved the lost master's slots to the promoted replica, at the latest after CAP_MS. */
const AFTER_SWITCH_MS = 1500;
const CAP_MS = 20_000;

const cluster = await startReplicatedCluster(t, { nodeTimeoutMs: NODE_TIMEOUT_MS });

interface Sample {
  status: number;
  /** The error code of a refusal. */
  error: string | undefined;
  ms: number;
  lostShard: boolean;
  at: number;
}

interface Figures {
  healthy: { total: number; ok: number };
  lost: { total: number; ok: number };
  maxUnavailableMs: number;
  statuses: Record<number, number>;
  /** Why requests on the healthy masters failed, if any did. */
  healthyErrors: Record<string, number>;
}

function figures(samples: Sample[]): Figures {
  const healthy = samples.filter((s) => !s.lostShard);
  const lost = samples.filter((s) => s.lostShard);
  const refused = samples.filter((s) => s.status === 503);
  const statuses: Record<number, number> = {};
  const healthyErrors: Record<string, number> = {};
  for (const s of samples) statuses[s.status] = (statuses[s.status] ?? 0) + 1;
  for (const s of healthy) if (s.error !== undefined) healthyErrors[s.error] = (healthyErrors[s.error] ?? 0) + 1;
  return {
    healthy: { total: healthy.length, ok: healthy.filter((s) => s.status === 200).length },
    lost: { total: lost.length, ok: lost.filter((s) => s.status === 200).length },
    maxUnavailableMs: Math.max(0, ...refused.map((s) => s.ms)),
    statuses,
    healthyErrors,
  };
}

/** Steady signed traffic, round robin over the accounts, until a while after `switched()` first holds. */
async function traffic(
  tg: TestGateway,
  accounts: TestServiceAccount[],
  onLostShard: Set<string>,
  switched: () => boolean,
  duringOutage: () => Promise<void>,
): Promise<Sample[]> {
  const samples: Sample[] = [];
  const started = Date.now();
  let next = 0;
  let switchedAt: number | undefined;
  let sampledOutage = false;
  const worker = async () => {
    for (let i = 0; i < CAP_MS / PACE_MS && Date.now() - started < CAP_MS; i++) {
      if (switchedAt === undefined && switched()) switchedAt = Date.now();
      if (switchedAt !== undefined && Date.now() - switchedAt > AFTER_SWITCH_MS) return;
      const account = accounts[next++ % accounts.length]!;
      const lostShard = onLostShard.has(account.account.id);
      const sent = performance.now();
      const answer = await signedInject(tg, account, { method: 'GET', url: '/v1/balance' });
      const error = answer.statusCode === 200 ? undefined : String(answer.json<{ error?: string }>().error);
      samples.push({ status: answer.statusCode, error, ms: performance.now() - sent, lostShard, at: Date.now() - started });
      if (!sampledOutage && samples.filter((s) => s.lostShard && s.status === 503).length >= 3) {
        sampledOutage = true;
        await duringOutage();
      }
      await sleep(PACE_MS);
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, worker));
  return samples;
}

async function metricValue(tg: TestGateway, line: string): Promise<string | undefined> {
  const text = (await adminInject(tg, { method: 'GET', url: '/metrics' })).body;
  return text
    .split('\n')
    .find((l) => l.startsWith(`${line} `))
    ?.split(' ')
    .pop();
}

/** Loses the master holding the first account (hang or kill), measures, and checks the gateway's own view of it. */
async function loseOneMaster(t: Test, tg: TestGateway, accounts: TestServiceAccount[], how: 'pause' | 'kill'): Promise<void> {
  const keyOf = (sa: TestServiceAccount) => `${tg.redisPrefix}sa:{${sa.account.access_id}}`;
  const masters = await Promise.all(accounts.map((sa) => cluster.masterOf(keyOf(sa))));
  const victim = masters[0]!;
  const node = `127.0.0.1:${victim}`;
  const onLostShard = new Set(accounts.filter((_sa, i) => masters[i] === victim).map((sa) => sa.account.id));
  t.ok(onLostShard.size > 0 && onLostShard.size < accounts.length, `${onLostShard.size} of ${accounts.length} accounts live on ${node}`);
  const replica = [...(await cluster.slotMap()).values()].find((s) => s.master === victim)!.replicas[0]!;
  await cluster.replicasInSync(victim);
  for (const sa of accounts) t.equal((await signedInject(tg, sa, { method: 'GET', url: '/v1/balance' })).statusCode, 200, 'served before');

  const lostAt = Date.now();
  if (how === 'pause') cluster.pause(victim);
  else await cluster.kill(victim);
  const nodeEvent = (event: string) =>
    tg.logs.lines
      .map((l) => JSON.parse(l) as { event?: string; node?: string; time: number })
      .find((l) => l.event === event && l.node === node && l.time >= lostAt);
  const samples = await traffic(
    tg,
    accounts,
    onLostShard,
    () => nodeEvent('store_up') !== undefined,
    async () => {
      // While the master is lost: the store as a whole is up, that node is not, and the gateway stays ready.
      t.equal(await metricValue(tg, 'gateway_store_up'), '1', 'gateway_store_up stays 1');
      t.equal(await metricValue(tg, `gateway_store_node_up{node="${node}"}`), '0', `gateway_store_node_up{node="${node}"} is 0`);
      const ready = await adminInject(tg, { method: 'GET', url: '/readyz' });
      t.equal(ready.statusCode, 200, '/readyz stays 200: the other masters serve');
      t.match(ready.json(), { status: 'ready', degraded_nodes: { [node]: String } }, 'and names the lost master');
    },
  );
  const f = figures(samples);
  const rate = f.healthy.ok / f.healthy.total;
  const [down, up] = [nodeEvent('store_down'), nodeEvent('store_up')];
  t.comment(
    `${how} ${node}: healthy masters ${f.healthy.ok}/${f.healthy.total} = ${(rate * 100).toFixed(1)} % served; lost master's accounts ${f.lost.ok}/${f.lost.total}; ` +
      `slowest 503 ${f.maxUnavailableMs.toFixed(0)} ms; answers ${JSON.stringify(f.statuses)}; refusals on healthy masters ${JSON.stringify(f.healthyErrors)}; its breaker opened ${down ? down.time - lostAt : '-'} ms after, ` +
      `its slots served by the promoted replica ${up ? up.time - lostAt : '-'} ms after`,
  );
  t.ok(f.healthy.total >= 50, `enough traffic on the healthy masters (${f.healthy.total})`);
  t.ok(rate >= 0.95, `at least 95 % of the requests on healthy masters succeed (${(rate * 100).toFixed(1)} %)`);
  t.ok(f.maxUnavailableMs <= 1000, `every 503 within 1 s (slowest ${f.maxUnavailableMs.toFixed(0)} ms)`);
  t.ok(
    Object.keys(f.statuses).every((s) => s === '200' || s === '503'),
    'only 200 or 503: fail closed, never another answer',
  );
  t.ok(f.statuses[503]! > 0, "the lost master's accounts were refused meanwhile");
  t.equal(await cluster.masterOf(keyOf(accounts[0]!)), replica, 'its replica was promoted');
  t.ok(down, 'store_down names the node');
  t.match(up, { moved: true }, 'store_up names it too, once its slots moved to the promoted replica');
  const lines = tg.logs.lines.map((l) => JSON.parse(l) as { event?: string; node?: string });
  t.notOk(
    lines.some((l) => l.event === 'store_down' && l.node === undefined),
    'the store as a whole was never down',
  );
  // Signatures are refused a little longer after a failover (a used nonce may have been lost with the old master).
  const lostAccount = accounts.find((a) => onLostShard.has(a.account.id))!;
  await until(
    async () => (await signedInject(tg, lostAccount, { method: 'GET', url: '/v1/balance' })).statusCode === 200,
    "the lost master's accounts are served by the promoted replica",
    20_000,
  );
  for (const sa of accounts.filter((a) => onLostShard.has(a.account.id)))
    t.equal((await signedInject(tg, sa, { method: 'GET', url: '/v1/balance' })).statusCode, 200, 'served by the promoted replica');
  t.equal(await metricValue(tg, `gateway_store_node_up{node="${node}"}`), undefined, 'the lost master left the metric');

  if (how === 'pause') {
    cluster.resume(victim);
    await waitFor('the old master rejoins as a replica', async () => [...(await cluster.slotMap()).values()].some((s) => s.replicas.includes(victim)), 15_000);
    for (const sa of accounts)
      t.equal((await signedInject(tg, sa, { method: 'GET', url: '/v1/balance' })).statusCode, 200, 'every account served after it rejoined');
  }
}

t.test('a Cluster master lost and promoted: only its own keys fail, briefly; the other masters keep serving', async (t) => {
  const tg = await startTestGateway(t, {
    config: { redis_cluster_nodes: cluster.nodes.map((n) => `${n.host}:${n.port}`).join(','), redis_command_timeout_ms: 250 },
  });
  const accounts: TestServiceAccount[] = [];
  // Each creation retried within a bound: on a loaded machine a healthy master can miss the 250 ms
  // command deadline while the cluster is new; what is tested is what the loss of one changes.
  while (accounts.length < 18) {
    await waitFor(
      'the gateway is ready and creates an account',
      async () => {
        accounts.push(await createServiceAccount(tg));
        return true;
      },
      10_000,
    );
  }

  await t.test('a master that hangs (SIGSTOP)', (t) => loseOneMaster(t, tg, accounts, 'pause'));
  // The first account's shard lost its replica; the next shard that still has one.
  const masters = await Promise.all(accounts.map((sa) => cluster.masterOf(`${tg.redisPrefix}sa:{${sa.account.access_id}}`)));
  const map = [...(await cluster.slotMap()).values()];
  const withReplica = accounts.filter((_sa, i) => map.some((s) => s.master === masters[i] && s.replicas.length > 0 && s.master !== masters[0]));
  await t.test('a master that dies (SIGKILL)', (t) => loseOneMaster(t, tg, [...withReplica, ...accounts.filter((a) => !withReplica.includes(a))], 'kill'));
});
