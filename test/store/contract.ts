// The credential store contract: one suite, run against every implementation (redis-store.test.ts,
// embedded-store.test.ts). A factory gives each subtest a fresh, empty store and cleans up after it.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Test } from 'tap';
import type { ClientRecord, CredentialStore, ServiceAccountRecord } from '../../gateway/store/types.js';

export type StoreFactory = (t: Test) => Promise<CredentialStore>;

export function clientRecord(overrides: Partial<ClientRecord> = {}): ClientRecord {
  return {
    clientId: randomUUID(),
    name: 'reports',
    scopes: ['sales', 'stats'],
    accountId: 'acct-1',
    secretHash: 'a'.repeat(64),
    createdAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

export function serviceAccountRecord(overrides: Partial<ServiceAccountRecord> = {}): ServiceAccountRecord {
  return {
    id: randomUUID(),
    accessId: randomUUID(),
    description: 'payouts',
    publicKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIA test',
    publicKeyBytes: 'A'.repeat(43),
    fingerprint: 'SHA256:abc',
    permissions: ['view_balance', 'initiate_payment'],
    allowedIps: ['10.0.0.0/8'],
    accountId: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    lastUsedAt: null,
    lastUsedIp: null,
    ...overrides,
  };
}

const byId = <T extends { clientId?: string; id?: string }>(a: T, b: T) => String(a.clientId ?? a.id).localeCompare(String(b.clientId ?? b.id));

export function credentialStoreContract(t: Test, factory: StoreFactory): void {
  t.test('clients: create, get, list, delete', async (t) => {
    const store = await factory(t);
    const a = clientRecord();
    const b = clientRecord({ accountId: null, scopes: ['products'] });
    t.equal(await store.createClient(a), true);
    t.equal(await store.createClient(b), true);
    t.equal(await store.createClient({ ...a, name: 'other' }), false, 'an existing client id is not overwritten');
    t.same(await store.getClient(a.clientId), a);
    t.equal(await store.getClient(randomUUID()), null);
    t.same((await store.listClients()).sort(byId), [a, b].sort(byId));
    t.equal(await store.deleteClient(a.clientId), true);
    t.equal(await store.deleteClient(a.clientId), false, 'a second delete finds nothing');
    t.equal(await store.getClient(a.clientId), null);
    t.same(await store.listClients(), [b]);
  });

  t.test('a record read back is a copy: changing it does not change the store', async (t) => {
    const store = await factory(t);
    const a = clientRecord();
    await store.createClient(a);
    a.scopes.push('financial');
    const read = await store.getClient(a.clientId);
    t.same(read!.scopes, ['sales', 'stats']);
    read!.scopes.push('webhooks');
    t.same((await store.getClient(a.clientId))!.scopes, ['sales', 'stats']);
  });

  t.test('revocation and bearerState', async (t) => {
    const store = await factory(t);
    const client = clientRecord();
    await store.createClient(client);
    const jti = randomUUID();
    const exp = Math.floor(Date.now() / 1000) + 3600;
    t.same(await store.bearerState(client.clientId, jti), { client, revoked: false });
    await store.revokeToken(jti, exp);
    t.same(await store.bearerState(client.clientId, jti), { client, revoked: true });
    t.same(await store.bearerState(client.clientId, randomUUID()), { client, revoked: false }, 'other tokens are not revoked');
    await store.revokeToken(jti, exp);
    t.same(await store.bearerState(client.clientId, jti), { client, revoked: true }, 'revoking twice is harmless');
    await store.deleteClient(client.clientId);
    t.same(await store.bearerState(client.clientId, randomUUID()), { client: null, revoked: false }, 'a deleted client is null');
    t.same(await store.bearerState(randomUUID(), jti), { client: null, revoked: true });
  });

  t.test('meta: get and compare-and-set', async (t) => {
    const store = await factory(t);
    t.equal(await store.getMeta('k'), null);
    t.equal(await store.compareAndSetMeta('k', 'x', 'a'), false, 'an absent value is not "x"');
    t.equal(await store.compareAndSetMeta('k', '', 'a'), false, 'an absent value is not the empty string');
    t.equal(await store.getMeta('k'), null);
    t.equal(await store.compareAndSetMeta('k', null, 'a'), true);
    t.equal(await store.getMeta('k'), 'a');
    t.equal(await store.compareAndSetMeta('k', null, 'b'), false, 'null expects the value to be absent');
    t.equal(await store.compareAndSetMeta('k', 'z', 'b'), false);
    t.equal(await store.getMeta('k'), 'a');
    t.equal(await store.compareAndSetMeta('k', 'a', ''), true);
    t.equal(await store.getMeta('k'), '');
    t.equal(await store.compareAndSetMeta('k', null, 'c'), false, 'an empty value is not absent');
    t.equal(await store.compareAndSetMeta('k', '', 'c'), true);
    t.equal(await store.getMeta('k'), 'c');
    t.equal(await store.getMeta('other'), null, 'names are independent');
  });

  t.test('meta: concurrent compare-and-set lets exactly one writer win', async (t) => {
    const store = await factory(t);
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => store.compareAndSetMeta('race', null, `v${i}`)));
    t.equal(results.filter(Boolean).length, 1);
    const winner = results.indexOf(true);
    t.equal(await store.getMeta('race'), `v${winner}`);
  });

  t.test('service accounts: create, get, list, delete', async (t) => {
    const store = await factory(t);
    const a = serviceAccountRecord();
    const b = serviceAccountRecord({ accountId: 'acct-9', allowedIps: [] });
    t.equal(await store.createServiceAccount(a), true);
    t.equal(await store.createServiceAccount(b), true);
    t.equal(await store.createServiceAccount(serviceAccountRecord({ id: a.id })), false, 'an existing id is refused');
    t.equal(await store.createServiceAccount(serviceAccountRecord({ accessId: a.accessId })), false, 'an existing Access ID is refused');
    t.same(await store.getServiceAccount(a.id), a);
    t.equal(await store.getServiceAccount(randomUUID()), null);
    t.equal(await store.getServiceAccount(a.accessId), null, 'the Access ID is not a management id');
    t.same((await store.listServiceAccounts()).sort(byId), [a, b].sort(byId));
    t.equal(await store.deleteServiceAccount(a.id), true);
    t.equal(await store.deleteServiceAccount(a.id), false);
    t.equal(await store.getServiceAccount(a.id), null);
    t.same(await store.listServiceAccounts(), [b]);
    t.same(await store.signedRequestState(a.accessId, 'n1', 300), { account: null, nonceFresh: false }, 'a deleted account is unknown at once');
    t.equal(await store.createServiceAccount(serviceAccountRecord({ accessId: a.accessId })), true, 'a deleted Access ID leaves no index behind');
  });

  t.test('signedRequestState: account, nonce freshness, single use', async (t) => {
    const store = await factory(t);
    const a = serviceAccountRecord();
    const b = serviceAccountRecord();
    await store.createServiceAccount(a);
    await store.createServiceAccount(b);
    const first = await store.signedRequestState(a.accessId, 'nonce-1', 300);
    t.equal(first.nonceFresh, true);
    t.equal(first.account?.id, a.id);
    t.equal(first.account?.accessId, a.accessId);
    t.same(first.account?.permissions, a.permissions);
    t.same(first.account?.allowedIps, a.allowedIps);
    t.equal(first.account?.publicKeyBytes, a.publicKeyBytes);
    const again = await store.signedRequestState(a.accessId, 'nonce-1', 300);
    t.equal(again.nonceFresh, false, 'a nonce is consumed once');
    t.equal(again.account?.id, a.id, 'a replay still reports the account');
    t.equal((await store.signedRequestState(a.accessId, 'nonce-2', 300)).nonceFresh, true);
    t.equal((await store.signedRequestState(b.accessId, 'nonce-1', 300)).nonceFresh, true, 'nonces are per Access ID');
    t.same(await store.signedRequestState(randomUUID(), 'nonce-3', 300), { account: null, nonceFresh: false }, 'unknown Access ID');
    t.equal((await store.signedRequestState(a.accessId, 'nonce-3', 300)).nonceFresh, true, 'a nonce sent with an unknown Access ID is not consumed');
  });

  t.test('signedRequestState: concurrent uses of one nonce, exactly one is fresh', async (t) => {
    const store = await factory(t);
    const a = serviceAccountRecord();
    await store.createServiceAccount(a);
    const states = await Promise.all(Array.from({ length: 10 }, () => store.signedRequestState(a.accessId, 'same', 300)));
    t.equal(states.filter((s) => s.nonceFresh).length, 1);
  });

  t.test('signedRequestState: a nonce is fresh again after its window', async (t) => {
    const store = await factory(t);
    const a = serviceAccountRecord();
    await store.createServiceAccount(a);
    t.equal((await store.signedRequestState(a.accessId, 'short', 1)).nonceFresh, true);
    t.equal((await store.signedRequestState(a.accessId, 'short', 1)).nonceFresh, false);
    await sleep(2100);
    t.equal((await store.signedRequestState(a.accessId, 'short', 1)).nonceFresh, true);
  });

  t.test('recordServiceAccountUse: last use shown; deleted or unknown accounts are skipped', async (t) => {
    const store = await factory(t);
    const a = serviceAccountRecord();
    const gone = serviceAccountRecord();
    await store.createServiceAccount(a);
    await store.createServiceAccount(gone);
    await store.deleteServiceAccount(gone.id);
    await store.recordServiceAccountUse([]);
    await store.recordServiceAccountUse([
      { accessId: a.accessId, at: '2026-02-01T10:00:00.000Z', ip: '10.0.0.1' },
      { accessId: gone.accessId, at: '2026-02-01T10:00:00.000Z', ip: '10.0.0.2' },
      { accessId: randomUUID(), at: '2026-02-01T10:00:00.000Z', ip: '10.0.0.3' },
    ]);
    await store.recordServiceAccountUse([{ accessId: a.accessId, at: '2026-02-01T11:00:00.000Z', ip: '10.0.0.9' }]);
    const read = await store.getServiceAccount(a.id);
    t.equal(read?.lastUsedAt, '2026-02-01T11:00:00.000Z');
    t.equal(read?.lastUsedIp, '10.0.0.9');
    t.same(await store.listServiceAccounts(), [{ ...a, lastUsedAt: '2026-02-01T11:00:00.000Z', lastUsedIp: '10.0.0.9' }]);
    t.equal(await store.getServiceAccount(gone.id), null, 'a use does not bring a deleted account back');
    t.same(await store.signedRequestState(gone.accessId, 'n', 300), { account: null, nonceFresh: false });
  });

  t.test('failure counting within a window', async (t) => {
    const store = await factory(t);
    t.same(await store.failureCounts([]), []);
    t.same(await store.failureCounts(['client:x', 'ip:1.2.3.4']), [0, 0]);
    t.equal(await store.failureWindowRemaining('client:x'), 0);
    await store.addFailure(['client:x', 'ip:1.2.3.4'], 60);
    await store.addFailure(['client:x'], 60);
    t.same(await store.failureCounts(['client:x', 'ip:1.2.3.4', 'client:y']), [2, 1, 0]);
    const remaining = await store.failureWindowRemaining('client:x');
    t.ok(remaining > 0 && remaining <= 60, `remaining ${remaining} within the 60 s window`);
    await store.addFailure(['client:x'], 3600);
    t.ok((await store.failureWindowRemaining('client:x')) <= 60, 'the window starts at the first failure and is not extended');
  });

  t.test('failure counts lapse when the window ends', async (t) => {
    const store = await factory(t);
    await store.addFailure(['ip:9.9.9.9'], 1);
    await store.addFailure(['ip:9.9.9.9'], 1);
    t.same(await store.failureCounts(['ip:9.9.9.9']), [2]);
    await sleep(2100);
    t.same(await store.failureCounts(['ip:9.9.9.9']), [0]);
    t.equal(await store.failureWindowRemaining('ip:9.9.9.9'), 0);
    await store.addFailure(['ip:9.9.9.9'], 60);
    t.same(await store.failureCounts(['ip:9.9.9.9']), [1], 'a new window starts from one');
  });

  t.test('sessions with a TTL', async (t) => {
    const store = await factory(t);
    t.equal(await store.getSession('s1'), null);
    await store.putSession('s1', '{"user":"ana"}', 60);
    await store.putSession('s2', 'short', 1);
    t.equal(await store.getSession('s1'), '{"user":"ana"}');
    t.equal(await store.getSession('s2'), 'short');
    await store.deleteSession('s1');
    t.equal(await store.getSession('s1'), null);
    await store.deleteSession('missing');
    await sleep(2100);
    t.equal(await store.getSession('s2'), null, 'an expired session is gone');
  });

  t.test('ping answers while the store is up', async (t) => {
    const store = await factory(t);
    await t.resolves(store.ping());
  });
}
