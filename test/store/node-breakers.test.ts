// The pieces that keep one lost Cluster master from stopping the others: a breaker per master
// (only that master's commands fail fast; all of them down is the store down), the store-wide
// breaker that ignores one master's failures, the key each command is routed by, and the deadline
// that bounds a command whatever the client's retries (checked on a hung redis-server of its own).
import { Redis } from 'ioredis';
import t from 'tap';
import { StoreBreaker } from '../../gateway/store/circuit-breaker.js';
import { NodeBreakers, type NodeEvent } from '../../gateway/store/node-breakers.js';
import { isUnavailability, NodeUnavailableError } from '../../gateway/store/node-unavailable-error.js';
import { DeadlineError, routeCommands, routingKeyOf } from '../../gateway/store/redis-routing.js';
import { StoreUnavailableError } from '../../gateway/store/types.js';
import { until } from '../helpers/poll.js';
import { startRedisServer } from '../helpers/redis-server.js';

const timedOut = () => Promise.reject(new Error('Command timed out'));
const replyError = (message: string) => Object.assign(new Error(message), { name: 'ReplyError' });

t.test('isUnavailability: a lost connection, a timeout or a refused slot is; an ordinary reply is not', async (t) => {
  for (const error of [
    new Error('Command timed out'),
    new Error('Connection is closed.'),
    new DeadlineError(350),
    replyError('CLUSTERDOWN The cluster is down'),
    replyError('TRYAGAIN'),
    replyError('LOADING Redis is loading'),
    'not even an Error',
  ])
    t.ok(isUnavailability(error), String(error));
  for (const error of [replyError('NOSCRIPT No matching script'), replyError('WRONGTYPE Operation against a key'), replyError('ERR syntax error')])
    t.notOk(isUnavailability(error), String(error));
});

t.test('routingKeyOf: the key each command is sent by', async (t) => {
  t.equal(routingKeyOf('get', ['k1']), 'k1');
  t.equal(routingKeyOf('mget', [['k1', 'k2']]), 'k1', 'an array of keys');
  t.equal(routingKeyOf('mget', ['k1', 'k2']), 'k1');
  t.equal(routingKeyOf('eval', ['return 1', 2, 'k1', 'k2', 'arg']), 'k1');
  t.equal(routingKeyOf('evalsha', ['abc', 0, 'arg']), undefined, 'a script without keys');
  t.equal(routingKeyOf('reserveFailureAttempt', [2, 'f1', 'f2', 60]), 'f1');
  t.equal(routingKeyOf('consumeNonce', ['sa:{a}', 'sa:{a}:nonce:n', 60, '']), 'sa:{a}');
  t.equal(routingKeyOf('ping', []), undefined, 'a command without a key is not routed');
  t.equal(routingKeyOf('info', ['replication']), undefined);
});

t.test('a breaker per node: only the failing node opens; a reply is the node working; all open is the store down', async (t) => {
  let masters = ['a:1', 'b:2'];
  let aAnswers = false;
  const events: NodeEvent[] = [];
  const breakers = new NodeBreakers({
    masters: () => masters,
    probeIntervalMs: 10,
    probe: async (node) => {
      if (!masters.includes(node)) return 'moved';
      if (node === 'a:1' && aAnswers) return 'up';
      throw new Error('connect ECONNREFUSED');
    },
  });
  t.teardown(() => breakers.close());
  breakers.onTransition((event) => events.push(event));

  for (let i = 0; i < 5; i++)
    await t.rejects(
      breakers.run('a:1', () => Promise.reject(replyError('NOSCRIPT'))),
      { name: 'ReplyError' },
      'a reply passes as it is',
    );
  t.same(
    breakers.states(),
    [
      { node: 'a:1', up: true, reason: undefined },
      { node: 'b:2', up: true, reason: undefined },
    ],
    'and opens nothing',
  );
  for (let i = 0; i < 3; i++) await t.rejects(breakers.run('a:1', timedOut), NodeUnavailableError);
  t.same(events, [{ kind: 'down', node: 'a:1', reason: 'Command timed out' }], 'three in a row open a:1');
  let called = false;
  const refused = await breakers.run('a:1', async () => (called = true)).catch((error: unknown) => error);
  t.type(refused, NodeUnavailableError, 'a:1 fails at once');
  t.equal((refused as NodeUnavailableError).node, 'a:1');
  t.equal(called, false, 'without sending');
  t.equal(await breakers.run('b:2', async () => 'answered'), 'answered', 'b:2 keeps serving');
  t.match(breakers.states(), [
    { node: 'a:1', up: false, reason: 'Command timed out' },
    { node: 'b:2', up: true },
  ]);
  await until(() => breakers.states()[0]!.reason === 'connect ECONNREFUSED', "then the reason is the probe's latest");

  for (let i = 0; i < 3; i++) await t.rejects(breakers.run('b:2', timedOut), NodeUnavailableError);
  const whole = await breakers.run('b:2', async () => 'x').catch((error: unknown) => error);
  t.ok(
    whole instanceof StoreUnavailableError && !(whole instanceof NodeUnavailableError),
    'every master down: a plain StoreUnavailableError, which the store-wide breaker counts',
  );

  aAnswers = true;
  await until(() => events.some((e) => e.kind === 'up' && e.node === 'a:1'), 'a:1 answers again');
  t.match(events.at(-1), { kind: 'up', node: 'a:1', moved: false });
  t.equal(await breakers.run('a:1', async () => 'back'), 'back');
  masters = ['a:1', 'c:3'];
  await until(() => events.some((e) => e.kind === 'up' && e.node === 'b:2'), 'b:2 lost its slots');
  t.match(events.at(-1), { kind: 'up', node: 'b:2', moved: true }, 'its slots moved to another master');
  t.same(
    breakers.states().map((s) => s.node),
    ['a:1', 'c:3'],
    'the lost node is forgotten',
  );
});

t.test("the store-wide breaker does not count one node's failures", async (t) => {
  const breaker = new StoreBreaker({ probe: async () => {}, failureThreshold: 3 });
  t.teardown(() => breaker.close());
  await breaker.start();
  for (let i = 0; i < 10; i++)
    await t.rejects(
      breaker.run(() => Promise.reject(new NodeUnavailableError('a:1', new Error('Command timed out')))),
      NodeUnavailableError,
    );
  t.ok(breaker.up, 'ten node failures: still up');
  for (let i = 0; i < 3; i++)
    await t.rejects(
      breaker.run(() => Promise.reject(new StoreUnavailableError(new Error('Cluster is not ready')))),
      StoreUnavailableError,
    );
  t.notOk(breaker.up, 'three store-wide failures open it');
});

t.test('a command gets its answer or fails within the command timeout plus the margin, whatever the client waits for', async (t) => {
  const server = await startRedisServer(t);
  // A client that would wait 10 s, as a Cluster client retrying a command can in all.
  const client = new Redis({ host: '127.0.0.1', port: server.port, commandTimeout: 10_000, maxRetriesPerRequest: 0, lazyConnect: true });
  client.on('error', () => {});
  t.teardown(() => client.disconnect());
  await client.connect();
  const routed = routeCommands(client, { redisCommandTimeoutMs: 100 });
  t.equal(await routed.client.set('deadline-test', '1'), 'OK');
  server.hang();
  t.teardown(() => server.resume());
  const started = performance.now();
  const error = await routed.client.get('deadline-test').catch((e: unknown) => e);
  const took = performance.now() - started;
  t.type(error, DeadlineError);
  t.ok(took >= 190 && took < 600, `failed after ${took.toFixed(0)} ms (100 ms timeout + 100 ms margin)`);
  await t.rejects(routed.pingAnyMaster(), DeadlineError, "the store's ping too");
  t.equal(routed.nodes, undefined, 'one server: no breakers per node');
});
