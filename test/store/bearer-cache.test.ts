// Bearer state from memory (GATEWAY_REDIS_CACHE_LEASE_MS): two stores on one Redis of the test's
// own, as two gateway instances. Repeated requests read nothing from Redis, and every change one
// instance makes (deletion, revocation, scope change, key retirement) is seen by the other on its
// very next request once the call has returned.
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

async function mgets(): Promise<number> {
  const stats = String(await redis.command('INFO', 'commandstats'));
  return Number(/cmdstat_mget:calls=(\d+)/.exec(stats)?.[1] ?? 0);
}

const exp = () => Math.floor(Date.now() / 1000) + 600;

t.test('repeated requests read Redis once; each change is seen by the other instance as soon as it returns', async (t) => {
  const [a, b] = [await openStore(t), await openStore(t)];
  const clients = Array.from({ length: 5 }, () => clientRecord({ scopes: ['sales', 'products'] }));
  for (const client of clients) t.equal(await a.createClient(client), true);

  const [first] = clients as [ReturnType<typeof clientRecord>];
  t.same((await b.bearerState(first.clientId, 'jti-0', 'kid-1')).client?.scopes, ['sales', 'products']);
  // Used once the channel has proven itself current (a heartbeat after the read).
  await until(
    async () => {
      const before = await mgets();
      await b.bearerState(first.clientId, 'jti-0', 'kid-1');
      return (await mgets()) === before;
    },
    'a repeated request is answered from memory',
    5000,
  );
  const before = await mgets();
  for (let i = 0; i < 50; i++) t.equal((await b.bearerState(first.clientId, 'jti-0', 'kid-1')).revoked, false);
  t.ok((await mgets()) - before <= 2, `50 requests, ${(await mgets()) - before} reads of Redis`);

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
