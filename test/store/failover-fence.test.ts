// Used nonces across a failover with the fence (gateway/store/failover-fence.ts): first its rule
// alone with a fake clock, then a store on a master whose replica is held behind, killed, and
// replaced by the replica: the nonce the replica never received is not accepted again.
import fc from 'fast-check';
import t from 'tap';
import { FailoverFence, GATEWAY_CLOCK_MARGIN_MS, masterIdentityOf, SignaturePredatesFailoverError } from '../../gateway/store/failover-fence.js';
import { RedisCredentialStore, type RedisStoreOptions } from '../../gateway/store/redis-store.js';
import { CLOCK_SKEW_SECONDS } from '../../gateway/signing/signature-window.js';
import { holds } from '../helpers/property.js';
import { until } from '../helpers/poll.js';
import { uniquePrefix } from '../helpers/redis.js';
import { infoField, startReplicatedRedis } from '../helpers/replicated-redis.js';
import { serviceAccountRecord } from './contract.js';

const REPLID = 'a'.repeat(40);
const PROMOTED = { replid: REPLID, continued: true };

t.test('the fence refuses signatures created up to the first sighting plus the skew, for every gateway alike', async (t) => {
  let now = 1_800_000_000_500;
  const recorded = new Map<string, number>();
  let records = 0;
  // The store's hash: the first sighting wins.
  const record = async (replid: string, nowMs: number) => {
    records++;
    if (!recorded.has(replid)) recorded.set(replid, nowMs);
    return recorded.get(replid)!;
  };
  const fence = new FailoverFence(record, () => now);
  const fenceSeconds = Math.floor((now + GATEWAY_CLOCK_MARGIN_MS) / 1000) + CLOCK_SKEW_SECONDS;

  await fence.check({ replid: REPLID, continued: false }, 0);
  t.equal(records, 0, 'a master never promoted has no fence and costs nothing');

  await Promise.all([1, 2, 3].map(() => fence.check(PROMOTED, fenceSeconds + 1)));
  t.equal(records, 1, 'a promoted master is looked up once, however many requests meet it at once');
  const refused = await fence.check(PROMOTED, fenceSeconds).catch((e: unknown) => e);
  t.type(refused, SignaturePredatesFailoverError, 'created at the fence plus the skew: refused');
  t.equal(
    (refused as SignaturePredatesFailoverError).retryAfterSeconds,
    fenceSeconds + 1 - Math.floor(now / 1000),
    'Retry-After: until a signature made then passes',
  );
  t.ok((refused as SignaturePredatesFailoverError).retryAfterSeconds <= CLOCK_SKEW_SECONDS + 2);
  await t.rejects(fence.check(PROMOTED, Math.floor(now / 1000) - 200), SignaturePredatesFailoverError, 'a signature from before the failover: refused');

  // Later, and on another gateway that meets the same master after a restart: the recorded fence holds.
  now += 60_000;
  const later = new FailoverFence(record, () => now);
  await t.rejects(later.check(PROMOTED, fenceSeconds), SignaturePredatesFailoverError, 'another gateway, later: the same fence, not its own sighting');
  await later.check(PROMOTED, fenceSeconds + 1);
  const refusedLater = (await later.check(PROMOTED, fenceSeconds).catch((e: unknown) => e)) as SignaturePredatesFailoverError;
  t.equal(refusedLater.retryAfterSeconds, 1, 'a fence long past asks for no wait beyond a second');

  // A second failover: a new id, a new fence.
  await t.rejects(
    later.check({ replid: 'b'.repeat(40), continued: true }, fenceSeconds + 1),
    SignaturePredatesFailoverError,
    'the next promoted master fences from its own sighting',
  );
});

t.test('a failed lookup fails the request (closed) and is asked again by the next one', async (t) => {
  let fail = true;
  const fence = new FailoverFence(async () => {
    if (fail) throw new Error('store down');
    return 0;
  });
  await t.rejects(fence.check(PROMOTED, 100), /store down/);
  fail = false;
  await fence.check(PROMOTED, 100);
  t.pass('asked again and passed');
});

t.test("the master's identity from the replication ids the script returns", async (t) => {
  t.same(masterIdentityOf(REPLID, '0'.repeat(40)), { replid: REPLID, continued: false }, 'no second id: nothing taken over');
  t.same(masterIdentityOf(REPLID, 'c'.repeat(40)), { replid: REPLID, continued: true }, 'a second id: promoted (or restarted from an RDB snapshot)');
  t.throws(() => masterIdentityOf('', ''), /no master_replid/, 'no id: fails (closed) rather than guess');
  holds(
    t,
    fc.property(
      fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 40, maxLength: 40 }),
      fc.oneof(fc.string(), fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 40, maxLength: 40 })),
      (replid, replid2) => {
        const identity = masterIdentityOf(replid, replid2);
        return identity.replid === replid && identity.continued === (/^[0-9a-f]{40}$/.test(replid2) && /[1-9a-f]/.test(replid2));
      },
    ),
    300,
  );
  holds(
    t,
    fc.property(
      fc.string().filter((s) => !/^[0-9a-f]{40}$/.test(s)),
      (replid) => {
        try {
          masterIdentityOf(replid, '');
          return false;
        } catch {
          return true;
        }
      },
    ),
    300,
  );
});

t.test('a store: the nonce a held-back replica never received is refused after it is promoted', async (t) => {
  const redis = await startReplicatedRedis(t);
  const prefix = uniquePrefix('fence');
  const open = async (options: RedisStoreOptions) => {
    const store = new RedisCredentialStore(redis.url, prefix, { commandTimeoutMs: 500, ...options });
    await store.connect();
    t.teardown(() => store.close());
    return store;
  };
  const store = await open({ nonceFailover: 'fence' });
  const unguarded = await open({ nonceFailover: 'off' });
  const account = serviceAccountRecord();
  t.equal(await store.createServiceAccount(account), true);
  const created = () => Math.floor(Date.now() / 1000);

  t.equal(await store.consumeNonce(account.accessId, 'replicated', 60, undefined, created()), 'fresh', 'a master never promoted: no fence');
  await redis.inSync();
  redis.link.hold();
  t.equal(await store.consumeNonce(account.accessId, 'lost', 60, undefined, created()), 'fresh', 'used on the master only');
  t.equal(await store.consumeNonce(account.accessId, 'lost-too', 60, undefined, created()), 'fresh');
  t.ok(redis.link.heldBytes() > 0, 'the nonces are held on the link');
  await redis.failover();
  await until(
    async () =>
      (await store.ping().then(
        () => true,
        () => false,
      )) &&
      (await unguarded.ping().then(
        () => true,
        () => false,
      )),
    'the stores reach the promoted replica',
    10_000,
  );
  t.not(await infoField(redis.replica, 'replication', 'master_replid2'), '0'.repeat(40), 'the promoted replica keeps its old master id as its second');

  const replay = await store.consumeNonce(account.accessId, 'lost', 60, undefined, created()).catch((e: unknown) => e);
  t.type(replay, SignaturePredatesFailoverError, 'the replayed nonce, unknown to the new master: refused by the fence');
  t.ok(
    (replay as SignaturePredatesFailoverError).retryAfterSeconds >= 1 && (replay as SignaturePredatesFailoverError).retryAfterSeconds <= CLOCK_SKEW_SECONDS + 2,
    'with a Retry-After of about the skew',
  );
  t.equal(
    await unguarded.consumeNonce(account.accessId, 'lost-too', 60),
    'fresh',
    'without the fence the lost nonce is accepted again (what the fence prevents)',
  );
  t.equal(await store.consumeNonce(account.accessId, 'replicated', 60, undefined, created()), 'used', 'a nonce the replica received is refused as used');

  const fences = (await redis.replica.command('HGETALL', `${prefix}failover-fences`)) as string[];
  t.equal(fences.length, 2, 'one fence recorded, on the new master');
  t.equal(fences[0], await infoField(redis.replica, 'replication', 'master_replid'), "under the new master's id");
  const later = await open({ nonceFailover: 'fence' });
  await t.rejects(
    later.consumeNonce(account.accessId, 'other', 60, undefined, created()),
    SignaturePredatesFailoverError,
    'a gateway started after the failover reads the same fence',
  );
  const fenceSeconds = Math.floor((Number(fences[1]) + GATEWAY_CLOCK_MARGIN_MS) / 1000) + CLOCK_SKEW_SECONDS;
  t.equal(
    await later.consumeNonce(account.accessId, 'signed-after', 60, undefined, fenceSeconds + 1),
    'fresh',
    'a signature created after the fence plus the skew passes',
  );
  t.same(await redis.replica.command('HGETALL', `${prefix}failover-fences`), fences, 'the fence is not moved by later sightings');
});
