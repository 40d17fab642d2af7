// Bearer state and the token endpoint's reads from memory (GATEWAY_REDIS_CACHE_LEASE_MS): two stores
// on one Redis of the test's own, as two gateway instances. Repeated requests read nothing from
// Redis, and every change one instance makes (deletion, revocation, scope change, key retirement,
// secret roll, a counted failure) is seen by the other on its very next request once the call has
// returned.
import { setTimeout as sleep } from 'node:timers/promises';
import t, { type Test } from 'tap';
import { RedisCredentialStore } from '../../gateway/store/redis-store.js';
import { until } from '../helpers/poll.js';
import { startRedisServer } from '../helpers/redis-server.js';
import { clientRecord } from './contract.js';

const LEASE_MS = 100;
const redis = await startRedisServer(t);

async function openStore(t: Test): Promise<RedisCredentialStore> {
  const store = new RedisCredentialStore(redis.url, 'bc:', { commandTimeoutMs: 2000, cacheLeaseMs: LEASE_MS });
  await store.connect();
  t.teardown(() => store.close());
  return store;
}

async function calls(command: string): Promise<number> {
  const stats = String(await redis.command('INFO', 'commandstats'));
  return Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
}

/** Calls `read` until it is answered from memory (the channel has proven itself current after the first read), then `times` more; resolves to the reads of `command` those made. */
async function readsOfRepeated(command: string, read: () => Promise<unknown>, times: number): Promise<number> {
  await read();
  await until(
    async () => {
      const before = await calls(command);
      await read();
      return (await calls(command)) === before;
    },
    `a repeated ${command} is answered from memory`,
    5000,
  );
  const before = await calls(command);
  for (let i = 0; i < times; i++) await read();
  return (await calls(command)) - before;
}

const exp = () => Math.floor(Date.now() / 1000) + 600;

t.test('repeated requests read Redis once; each change is seen by the other instance as soon as it returns', async (t) => {
  const [a, b] = [await openStore(t), await openStore(t)];
  const clients = Array.from({ length: 5 }, () => clientRecord({ scopes: ['sales', 'products'] }));
  for (const client of clients) t.equal(await a.createClient(client), true);

  const [first] = clients as [ReturnType<typeof clientRecord>];
  t.same((await b.bearerState(first.clientId, 'jti-0', 'kid-1')).client?.scopes, ['sales', 'products']);
  const reads = await readsOfRepeated('mget', async () => t.equal((await b.bearerState(first.clientId, 'jti-0', 'kid-1')).revoked, false), 50);
  t.ok(reads <= 2, `50 requests, ${reads} reads of Redis`);

  for (const [i, client] of clients.entries()) {
    const jti = `jti-${i}`;
    const kid = `kid-${i}`;
    // Cached on b first, then changed through a: b's next request sees the change.
    const seen = await b.bearerState(client.clientId, jti, kid);
    t.same([seen.client?.clientId, seen.revoked, seen.signingKeyRetired], [client.clientId, false, false]);
    await b.bearerState(client.clientId, jti, kid);
    switch (i % 4) {
      case 0:
        await a.updateClient(client.clientId, () => ({ scopes: ['products'] }));
        t.same((await b.bearerState(client.clientId, jti, kid)).client?.scopes, ['products'], 'a scope taken away: gone on the other instance at once');
        break;
      case 1:
        await a.revokeToken(client.clientId, jti, exp());
        t.equal((await b.bearerState(client.clientId, jti, kid)).revoked, true, 'a revocation: refused on the other instance at once');
        break;
      case 2:
        await a.retireSigningKey(kid, exp());
        t.equal((await b.bearerState(client.clientId, jti, kid)).signingKeyRetired, true, 'a retired key: refused on the other instance at once');
        break;
      default:
        await a.deleteClient(client.clientId);
        t.equal((await b.bearerState(client.clientId, jti, kid)).client, null, 'a deletion: refused on the other instance at once');
    }
  }
});

t.test('a change waits out the lease before it is answered', async (t) => {
  const a = await openStore(t);
  const client = clientRecord();
  await a.createClient(client);
  const started = performance.now();
  await a.deleteClient(client.clientId);
  t.ok(performance.now() - started >= LEASE_MS - 1, `answered after ${(performance.now() - started).toFixed(0)} ms`);
});

t.test("the token endpoint's reads: client records and failure counters from memory, a roll and a failure seen at once", async (t) => {
  const [a, b] = [await openStore(t), await openStore(t)];
  const client = clientRecord({ tokenEndpointAuthMethod: 'client_secret_post' });
  await a.createClient(client);
  t.equal(await readsOfRepeated('get', () => b.getClient(client.clientId), 20), 0, '20 reads of a client record, none from Redis');

  const absent = clientRecord().clientId;
  const before = await calls('get');
  for (let i = 0; i < 3; i++) t.equal(await b.getClient(absent), null);
  t.equal((await calls('get')) - before, 3, 'an id no client has is read every time: what a guesser names is not kept');

  t.equal(await readsOfRepeated('get', () => a.getClient(client.clientId), 1), 0);
  const rolling = performance.now();
  t.match(await b.rollClientSecret(client.clientId, 'b'.repeat(64), 0), { secretHash: 'b'.repeat(64) });
  t.ok(performance.now() - rolling >= LEASE_MS - 1, 'a roll waits out the lease before it is answered');
  t.equal((await a.getClient(client.clientId))?.secretHash, 'b'.repeat(64), 'a roll on one instance: the other checks the new secret at once');

  const limits = [
    { key: 'oauth:network:192.0.2.1', max: 2 },
    { key: `oauth:pair:${client.clientId}:192.0.2.1`, max: 2 },
  ];
  t.equal(await readsOfRepeated('mget', () => b.checkAttempt(limits), 20), 0, '20 checks of the failure counters, none from Redis');
  t.equal(await readsOfRepeated('mget', () => a.checkAttempt(limits), 1), 0);
  for (let i = 0; i < 2; i++) t.same(await a.reserveAttempt(limits, 60), { allowed: true, retryAfterSeconds: 0 }, 'a failure counted');
  t.match(await a.checkAttempt(limits), { allowed: false }, 'the instance that counted it refuses a success at once once a ceiling is reached');
  // Another instance may answer a right secret until Redis's report arrives, at most a lease later: a
  // wrong one is counted (and refused) in one atomic step whatever the cache holds.
  await sleep(LEASE_MS);
  t.match(await b.checkAttempt(limits), { allowed: false }, 'the other instance, within the lease');
  const blocked = await calls('mget');
  await b.checkAttempt(limits);
  t.equal((await calls('mget')) - blocked, 1, 'a count at its ceiling is not kept: read again with its lifetime');
});
