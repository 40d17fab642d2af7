// The credential store contract: one suite, run against every implementation (redis-store.test.ts,
// embedded-store.test.ts). A factory gives each subtest a fresh, empty store and cleans up after it.
// Where a case needs time to pass (an expiry, a refill, room for a call that must not come), it asks
// the run's StoreTime: a Redis run waits real time, since Redis expires keys and delivers changes on
// its own; the embedded run moves its store's clock and lets what is pending run.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Test } from 'tap';
import { serviceAccountIdFor } from '../../gateway/store/account-ids.js';
import type { ClientRecord, CredentialStore, Page, PageRequest, ServiceAccountKey, ServiceAccountRecord } from '../../gateway/store/types.js';
import { until } from '../helpers/poll.js';
import { rateLimitContract } from './contract-rate-limit.js';

export type StoreFactory = (t: Test) => Promise<CredentialStore>;

/** How time passes for the store the factory made last (subtests run one at a time). */
export interface StoreTime {
  /** Resolves once `ms` have passed for the store and what it set in motion has run. */
  pass(ms: number): Promise<void>;
}

/** Waits the time out: for stores whose clock the test cannot move (Redis). */
export const realTime: StoreTime = { pass: (ms) => sleep(ms) };

export function clientRecord(overrides: Partial<ClientRecord> = {}): ClientRecord {
  return {
    clientId: randomUUID(),
    name: 'reports',
    scopes: ['sales', 'stats'],
    accountId: 'acct-1',
    secretHash: 'a'.repeat(64),
    createdAt: '2026-01-01T00:00:00.000Z',
    resourceServer: false,
    // Last: where the upgrade of an older record adds them, so that both write the same JSON.
    tokenEndpointAuthMethod: 'client_secret_basic',
    jwks: [],
    dpopBoundAccessTokens: false,
    ...overrides,
  };
}

/** An account with one key (the top-level one, unless overrides name the key list). */
export function serviceAccountRecord(overrides: Partial<ServiceAccountRecord> = {}): ServiceAccountRecord {
  const account = {
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
    expiresAt: null,
    ...overrides,
  };
  const { publicKey, publicKeyBytes, fingerprint, createdAt } = account;
  return { ...account, publicKeys: overrides.publicKeys ?? [{ publicKey, publicKeyBytes, fingerprint, addedAt: createdAt }] };
}

/** Lists are newest first, then by id (as bytes, not by locale) descending. ISO times of one format compare as text. */
const inListOrder = <T extends { clientId?: string; id?: string; createdAt: string }>(a: T, b: T) => {
  if (a.createdAt !== b.createdAt) return a.createdAt > b.createdAt ? -1 : 1;
  const [x, y] = [String(a.clientId ?? a.id), String(b.clientId ?? b.id)];
  return x > y ? -1 : x < y ? 1 : 0;
};

/** The i-th of a list's records: two at a time share a millisecond, so pages split such pairs. */
const createdAtOf = (i: number) => new Date(Date.UTC(2026, 0, 1) + Math.floor(i / 2)).toISOString();

export function credentialStoreContract(t: Test, factory: StoreFactory, time: StoreTime = realTime): void {
  t.test('clients: create, get, list, delete', async (t) => {
    const store = await factory(t);
    const a = clientRecord();
    const b = clientRecord({ accountId: null, scopes: ['products'], createdAt: '2026-01-02T00:00:00.000Z' });
    t.equal(await store.createClient(a), true);
    t.equal(await store.createClient(b), true);
    t.equal(await store.createClient({ ...a, name: 'other' }), false, 'an existing client id is not overwritten');
    t.same(await store.getClient(a.clientId), a);
    t.equal(await store.getClient(randomUUID()), null);
    t.same(await store.listClients({ limit: 10 }), { items: [b, a], nextCursor: null }, 'newest first');
    t.equal(await store.deleteClient(a.clientId), true);
    t.equal(await store.deleteClient(a.clientId), false, 'a second delete finds nothing');
    t.equal(await store.getClient(a.clientId), null);
    t.same(await store.listClients({ limit: 10 }), { items: [b], nextCursor: null });
  });

  t.test('a record read back is frozen, and the one created was copied: neither changes the store', async (t) => {
    const store = await factory(t);
    const a = clientRecord();
    await store.createClient(a);
    a.scopes.push('financial');
    const read = await store.getClient(a.clientId);
    t.same(read!.scopes, ['sales', 'stats']);
    t.throws(() => read!.scopes.push('webhooks'), TypeError);
    t.throws(() => Object.assign(read!, { name: 'changed' }), TypeError);
    t.same(await store.getClient(a.clientId), { ...a, scopes: ['sales', 'stats'] });
  });

  t.test('revocation and bearerState', async (t) => {
    const store = await factory(t);
    const client = clientRecord();
    await store.createClient(client);
    const jti = randomUUID();
    const exp = Math.floor(Date.now() / 1000) + 3600;
    t.same(await store.bearerState(client.clientId, jti, 'kid'), { client, revoked: false, signingKeyRetired: false });
    await store.revokeToken(client.clientId, jti, exp);
    t.same(await store.bearerState(client.clientId, jti, 'kid'), { client, revoked: true, signingKeyRetired: false });
    t.same(await store.bearerState(client.clientId, randomUUID(), 'kid'), { client, revoked: false, signingKeyRetired: false }, 'other tokens are not revoked');
    await store.revokeToken(client.clientId, jti, exp);
    t.same(await store.bearerState(client.clientId, jti, 'kid'), { client, revoked: true, signingKeyRetired: false }, 'revoking twice is harmless');
    await store.deleteClient(client.clientId);
    t.same(
      await store.bearerState(client.clientId, randomUUID(), 'kid'),
      { client: null, revoked: false, signingKeyRetired: false },
      'a deleted client is null',
    );
    t.same(await store.bearerState(client.clientId, jti, 'kid'), { client: null, revoked: true, signingKeyRetired: false }, 'the mark outlives the client');
  });

  t.test('a retired signing key: bearerState reports every token it signed, whatever the client, until the mark ends', async (t) => {
    const store = await factory(t);
    const client = clientRecord();
    await store.createClient(client);
    const kid = randomUUID();
    const other = randomUUID();
    const now = Math.floor(Date.now() / 1000);
    t.same(await store.bearerState(client.clientId, randomUUID(), kid), { client, revoked: false, signingKeyRetired: false }, 'not retired yet');
    await store.retireSigningKey(kid, now + 3600);
    t.same(await store.bearerState(client.clientId, randomUUID(), kid), { client, revoked: false, signingKeyRetired: true }, 'any token of the retired key');
    t.same(await store.bearerState(randomUUID(), randomUUID(), kid), { client: null, revoked: false, signingKeyRetired: true }, 'of any client');
    t.same(await store.bearerState(client.clientId, randomUUID(), other), { client, revoked: false, signingKeyRetired: false }, 'other keys are not retired');
    await store.retireSigningKey(kid, now + 3600);
    t.equal((await store.bearerState(client.clientId, randomUUID(), kid)).signingKeyRetired, true, 'retiring twice is harmless');
    await store.retireSigningKey(other, now - 1);
    t.equal((await store.bearerState(client.clientId, randomUUID(), other)).signingKeyRetired, false, 'a mark whose time has passed is not reported');
  });

  t.test('clients: rolling the secret keeps the replaced hash for the grace period, at most one', async (t) => {
    const store = await factory(t);
    const client = clientRecord({ secretHash: '1'.repeat(64) });
    await store.createClient(client);
    t.equal(await store.rollClientSecret(randomUUID(), '2'.repeat(64), 60), null, 'an unknown client');

    const before = Date.now();
    const first = await store.rollClientSecret(client.clientId, '2'.repeat(64), 60);
    const expiresAt = Date.parse(first!.previousSecretExpiresAt!);
    t.ok(expiresAt >= before + 60_000 && expiresAt <= Date.now() + 60_000, 'the grace ends graceSeconds from now');
    t.same(first, { ...client, secretHash: '2'.repeat(64), previousSecretHash: '1'.repeat(64), previousSecretExpiresAt: first!.previousSecretExpiresAt });
    t.same(await store.getClient(client.clientId), first, 'stored as returned');
    t.same((await store.bearerState(client.clientId, randomUUID(), 'kid')).client, first, 'bearerState sees the same record');
    t.same((await store.listClients({ limit: 10 })).items, [first]);

    const second = await store.rollClientSecret(client.clientId, '3'.repeat(64), 30);
    t.equal(second!.secretHash, '3'.repeat(64));
    t.equal(second!.previousSecretHash, '2'.repeat(64), 'a roll during a grace period replaces the previous hash: the first one is gone');
    t.same(await store.getClient(client.clientId), second);

    const third = await store.rollClientSecret(client.clientId, '4'.repeat(64), 0);
    t.same(third, { ...client, secretHash: '4'.repeat(64) }, 'no grace: no previous hash is kept, every other field unchanged');
    t.same(await store.getClient(client.clientId), third);

    await store.deleteClient(client.clientId);
    t.equal(await store.rollClientSecret(client.clientId, '5'.repeat(64), 60), null, 'a deleted client');
    t.equal(await store.getClient(client.clientId), null, 'a roll does not bring a deleted client back');
  });

  t.test('clients: concurrent secret rolls apply one after another, none lost', async (t) => {
    const store = await factory(t);
    const client = clientRecord({ secretHash: '0'.repeat(64) });
    await store.createClient(client);
    const hashes = Array.from({ length: 8 }, (_, i) => String(i + 1).repeat(64));
    const results = await Promise.all(hashes.map((hash) => store.rollClientSecret(client.clientId, hash, 60)));
    t.ok(
      results.every((r) => r !== null),
      'every roll succeeds',
    );
    const final = (await store.getClient(client.clientId))!;
    t.ok(hashes.includes(final.secretHash!));
    // Each roll's previous hash is the hash current when it applied: the rolls form one chain from the original hash.
    const previousOf = new Map(results.map((r) => [r!.secretHash, r!.previousSecretHash]));
    const chain = [final.secretHash];
    while (previousOf.has(chain.at(-1)!)) chain.push(previousOf.get(chain.at(-1)!)!);
    t.equal(chain.length, hashes.length + 1, 'one chain through every roll');
    t.equal(chain.at(-1), '0'.repeat(64), 'ending at the original hash');
    t.equal(final.previousSecretHash, chain[1]);
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

  t.test('meta: a watcher that re-reads on each call sees every change, and is not called once stopped', async (t) => {
    const store = await factory(t);
    let calls = 0;
    let seen: string | null = null;
    // Calls may also come when nothing changed (a watch that begins or reconnects): the watcher re-reads.
    const stop = store.watchMeta('watched', () => {
      calls++;
      void store.getMeta('watched').then((value) => (seen = value));
    });
    t.teardown(stop);
    t.equal(await store.compareAndSetMeta('watched', null, 'a'), true);
    await until(() => seen === 'a', 'the watcher sees the first value');
    t.equal(await store.compareAndSetMeta('watched', 'a', 'b'), true);
    await until(() => seen === 'b', 'the watcher sees the second value');
    t.equal(await store.compareAndSetMeta('watched', 'x', 'c'), false);
    stop();
    stop();
    const before = calls;
    t.equal(await store.compareAndSetMeta('watched', 'b', 'c'), true);
    await time.pass(200);
    t.equal(calls, before, 'no call after the watch stopped (stopping twice is harmless)');
    t.equal(seen, 'b');
  });

  t.test('meta: each of several watchers of a name is called; stopping one leaves the others', async (t) => {
    const store = await factory(t);
    const seen = { one: null as string | null, two: null as string | null };
    const watch = (who: 'one' | 'two') => store.watchMeta('shared', () => void store.getMeta('shared').then((v) => (seen[who] = v)));
    const stopOne = watch('one');
    const stopTwo = watch('two');
    t.teardown(() => {
      stopOne();
      stopTwo();
    });
    await store.compareAndSetMeta('shared', null, 'v1');
    await until(() => seen.one === 'v1' && seen.two === 'v1', 'both watchers see v1');
    stopOne();
    await store.compareAndSetMeta('shared', 'v1', 'v2');
    await until(() => seen.two === 'v2', 'the remaining watcher sees v2');
    t.equal(seen.one, 'v1', 'the stopped watcher saw nothing more');
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
    t.same(await store.listServiceAccounts({ limit: 10 }), { items: [a, b].sort(inListOrder), nextCursor: null }, 'in list order');
    t.equal(await store.deleteServiceAccount(a.id), true);
    t.equal(await store.deleteServiceAccount(a.id), false);
    t.equal(await store.getServiceAccount(a.id), null);
    t.same(await store.listServiceAccounts({ limit: 10 }), { items: [b], nextCursor: null });
    t.same(await store.serviceAccountForRequest(a.accessId, 'n1'), { account: null, nonceUsed: false }, 'a deleted account is unknown at once');
    t.equal(await store.createServiceAccount(serviceAccountRecord({ accessId: a.accessId })), true, 'a deleted Access ID leaves no index behind');
  });

  t.test('service accounts: delete by Access ID; an id in the slot of its Access ID works like any other', async (t) => {
    const store = await factory(t);
    const plain = serviceAccountRecord();
    const accessId = randomUUID();
    const aligned = serviceAccountRecord({ accessId, id: serviceAccountIdFor(accessId) });
    for (const account of [plain, aligned]) t.equal(await store.createServiceAccount(account), true);
    t.same(await store.getServiceAccount(aligned.id), aligned);
    t.equal(await store.createServiceAccount(serviceAccountRecord({ id: aligned.id })), false, 'an existing id is refused');
    t.equal(await store.createServiceAccount(serviceAccountRecord({ accessId: aligned.accessId })), false, 'an existing Access ID is refused');
    t.equal(await store.deleteServiceAccountByAccessId(aligned.accessId), aligned.id, "the deleted account's id is returned");
    t.equal(await store.deleteServiceAccountByAccessId(aligned.accessId), null, 'once');
    t.equal(await store.getServiceAccount(aligned.id), null);
    t.same(await store.serviceAccountForRequest(aligned.accessId, 'n'), { account: null, nonceUsed: false }, 'its Access ID is unknown at once');
    t.same((await store.listServiceAccounts({ limit: 10 })).items, [plain]);
    t.equal(await store.deleteServiceAccountByAccessId(randomUUID()), null, 'an unknown Access ID deletes nothing');
    t.equal(await store.deleteServiceAccountByAccessId(plain.accessId), plain.id);
    t.same(await store.listServiceAccounts({ limit: 10 }), { items: [], nextCursor: null });
    t.equal(await store.createServiceAccount(aligned), true, 'the id and Access ID can be created again: nothing was left behind');
    t.same(await store.getServiceAccount(aligned.id), aligned);
  });

  t.test('service accounts: expires_at is kept and read back everywhere', async (t) => {
    const store = await factory(t);
    const expiring = serviceAccountRecord({ expiresAt: '2031-05-01T12:00:00.000Z' });
    const never = serviceAccountRecord({ expiresAt: null });
    await store.createServiceAccount(expiring);
    await store.createServiceAccount(never);
    t.equal((await store.getServiceAccount(expiring.id))?.expiresAt, '2031-05-01T12:00:00.000Z');
    t.equal((await store.findServiceAccountByAccessId(expiring.accessId))?.expiresAt, '2031-05-01T12:00:00.000Z');
    t.equal((await store.serviceAccountForRequest(expiring.accessId, 'n')).account?.expiresAt, '2031-05-01T12:00:00.000Z', 'the hot-path read carries it');
    t.equal((await store.getServiceAccount(never.id))?.expiresAt, null);
    t.same((await store.listServiceAccounts({ limit: 10 })).items, [expiring, never].sort(inListOrder));
  });

  t.test('service account keys: add a second key, refuse a third or a duplicate, remove any but the last', async (t) => {
    const store = await factory(t);
    // An account with its one key, which is also the top-level one.
    const a = serviceAccountRecord();
    await store.createServiceAccount(a);
    await store.recordServiceAccountUse([{ accessId: a.accessId, at: '2026-02-01T10:00:00.000Z', ip: '10.0.0.1', fingerprint: a.fingerprint }]);
    const first = { publicKey: a.publicKey, publicKeyBytes: a.publicKeyBytes, fingerprint: a.fingerprint, addedAt: a.createdAt };
    const second = { publicKey: 'ssh-ed25519 AAAA second', publicKeyBytes: 'B'.repeat(43), fingerprint: 'SHA256:second', addedAt: '2026-03-01T00:00:00.000Z' };
    const third = { publicKey: 'ssh-ed25519 AAAA third', publicKeyBytes: 'C'.repeat(43), fingerprint: 'SHA256:third', addedAt: '2026-03-02T00:00:00.000Z' };

    const added = await store.addServiceAccountKey(a.id, second);
    t.equal(added.outcome, 'added');
    // The use was the first key's: its own last use is shown with it.
    const firstUsed = { ...first, lastUsedAt: '2026-02-01T10:00:00.000Z' };
    const both = { ...a, publicKeys: [firstUsed, second], lastUsedAt: '2026-02-01T10:00:00.000Z', lastUsedIp: '10.0.0.1' };
    t.same(added.account, both, 'the first key stays the top-level one; the usage is kept');
    t.same(await store.getServiceAccount(a.id), both);
    const keysOnly = (keys: readonly ServiceAccountKey[] | undefined) => keys?.map(({ lastUsedAt: _used, ...key }) => key);
    t.same(keysOnly((await store.serviceAccountForRequest(a.accessId, 'n')).account?.publicKeys), [first, second], 'the hot-path read carries both keys');
    t.equal((await store.findServiceAccountByAccessId(a.accessId))?.accessId, a.accessId, 'the Access ID is unchanged');

    t.equal((await store.addServiceAccountKey(a.id, { ...second, addedAt: '2026-04-01T00:00:00.000Z' })).outcome, 'key_exists');
    t.equal(
      (await store.addServiceAccountKey(a.id, { ...third, fingerprint: 'SHA256:other', publicKeyBytes: second.publicKeyBytes })).outcome,
      'key_exists',
      'the same key bytes count as the same key',
    );
    const full = await store.addServiceAccountKey(a.id, third);
    t.equal(full.outcome, 'key_limit');
    t.same(keysOnly(full.account?.publicKeys), [first, second], 'a refusal changes nothing');
    t.equal((await store.addServiceAccountKey(randomUUID(), third)).outcome, 'account_not_found');
    t.same(await store.addServiceAccountKey(randomUUID(), third), { outcome: 'account_not_found', account: null });

    t.equal((await store.removeServiceAccountKey(a.id, 'SHA256:nope')).outcome, 'key_not_found');
    t.same(await store.removeServiceAccountKey(randomUUID(), first.fingerprint), { outcome: 'account_not_found', account: null });
    const removed = await store.removeServiceAccountKey(a.id, first.fingerprint);
    t.equal(removed.outcome, 'removed');
    const rotated = {
      ...a,
      publicKey: second.publicKey,
      publicKeyBytes: second.publicKeyBytes,
      fingerprint: second.fingerprint,
      publicKeys: [second],
      lastUsedAt: '2026-02-01T10:00:00.000Z',
      lastUsedIp: '10.0.0.1',
    };
    t.same(removed.account, rotated, 'the remaining key becomes the top-level one');
    t.same(await store.getServiceAccount(a.id), rotated);
    t.equal((await store.serviceAccountForRequest(a.accessId, 'n')).account?.publicKeyBytes, second.publicKeyBytes);
    const last = await store.removeServiceAccountKey(a.id, second.fingerprint);
    t.equal(last.outcome, 'last_key');
    t.same(await store.getServiceAccount(a.id), rotated, 'the last key is never removed');
    t.equal((await store.addServiceAccountKey(a.id, third)).outcome, 'added', 'a slot is free again');

    await store.deleteServiceAccount(a.id);
    t.equal((await store.addServiceAccountKey(a.id, first)).outcome, 'account_not_found', 'a deleted account gets no key');
    t.equal(await store.findServiceAccountByAccessId(a.accessId), null, 'and does not come back');
  });

  t.test('service account keys: concurrent adds of different keys, exactly one wins the free slot', async (t) => {
    const store = await factory(t);
    const a = serviceAccountRecord();
    await store.createServiceAccount(a);
    const keys = Array.from({ length: 6 }, (_, i) => ({
      publicKey: `ssh-ed25519 AAAA k${i}`,
      publicKeyBytes: String(i).repeat(43),
      fingerprint: `SHA256:k${i}`,
      addedAt: '2026-03-01T00:00:00.000Z',
    }));
    const outcomes = await Promise.all(keys.map((key) => store.addServiceAccountKey(a.id, key)));
    t.equal(outcomes.filter((o) => o.outcome === 'added').length, 1);
    t.equal(outcomes.filter((o) => o.outcome === 'key_limit').length, 5);
    t.equal((await store.getServiceAccount(a.id))?.publicKeys?.length, 2, 'never more than two keys');
  });

  t.test('findServiceAccountByAccessId: the account behind a full Access ID, or null', async (t) => {
    const store = await factory(t);
    const a = serviceAccountRecord();
    await store.createServiceAccount(a);
    t.same(await store.findServiceAccountByAccessId(a.accessId), a);
    t.equal(await store.findServiceAccountByAccessId(a.id), null, 'the management id is not an Access ID');
    t.equal(await store.findServiceAccountByAccessId(randomUUID()), null);
    await store.deleteServiceAccount(a.id);
    t.equal(await store.findServiceAccountByAccessId(a.accessId), null, 'a deleted account is not found');
  });

  t.test("clients' last use: the latest kept, only for a client that exists, gone with the client", async (t) => {
    const store = await factory(t);
    const [a, b] = [clientRecord(), clientRecord()];
    for (const c of [a, b]) await store.createClient(c);
    const ghost = randomUUID();
    t.same(await store.clientLastUses([a.clientId, b.clientId]), [null, null], 'never used');
    await store.recordClientUse([
      { clientId: a.clientId, at: '2026-02-01T10:00:00.000Z' },
      { clientId: ghost, at: '2026-02-01T10:00:00.000Z' },
    ]);
    await store.recordClientUse([{ clientId: a.clientId, at: '2026-02-01T09:00:00.000Z' }]);
    t.same(
      await store.clientLastUses([a.clientId, b.clientId, ghost]),
      ['2026-02-01T10:00:00.000Z', null, null],
      'an earlier use (another instance, late) does not win; an unknown client gets none',
    );
    await store.recordClientUse([{ clientId: a.clientId, at: '2026-02-01T11:30:00.123Z' }]);
    t.same(await store.clientLastUses([a.clientId]), ['2026-02-01T11:30:00.123Z'], 'a later one does');
    t.equal(await store.deleteClient(a.clientId), true);
    t.same(await store.clientLastUses([a.clientId]), [null], 'deleted with the client');
    t.equal(await store.createClient(a), true);
    t.same(await store.clientLastUses([a.clientId]), [null], 'a client created again under that id starts unused');
  });

  t.test('lists come in pages, newest first: every record once, nextCursor null at the end', async (t) => {
    const store = await factory(t);
    const clients = Array.from({ length: 7 }, (_, i) => clientRecord({ createdAt: createdAtOf(i) }));
    const accounts = Array.from({ length: 7 }, (_, i) => serviceAccountRecord({ createdAt: createdAtOf(i) }));
    for (const c of clients) await store.createClient(c);
    for (const a of accounts) await store.createServiceAccount(a);
    for (const [what, list, all] of [
      ['clients', (p: PageRequest) => store.listClients(p), clients.sort(inListOrder)],
      ['service accounts', (p: PageRequest) => store.listServiceAccounts(p), accounts.sort(inListOrder)],
    ] as const) {
      const pages: unknown[][] = [];
      let cursor: string | undefined;
      for (let i = 0; i < 5; i++) {
        const page: Page<unknown> = await list({ limit: 3, cursor });
        pages.push(page.items);
        if (page.nextCursor === null) break;
        t.type(page.nextCursor, 'string');
        cursor = page.nextCursor;
      }
      t.same(pages, [all.slice(0, 3), all.slice(3, 6), all.slice(6)], `${what}: three pages in list order`);
      t.same(await list({ limit: 7 }), { items: all, nextCursor: null }, `${what}: a page that holds the rest is the last`);
      const first = await list({ limit: 2 });
      t.same(first.items, all.slice(0, 2));
      t.same((await list({ limit: 2, cursor: first.nextCursor! })).items, all.slice(2, 4), `${what}: the cursor continues after the last entry`);
    }
    // Changes between pages: a deleted record is skipped, later ones are not repeated or lost.
    const first = await store.listClients({ limit: 3 });
    await store.deleteClient(clients[3]!.clientId);
    t.same((await store.listClients({ limit: 3, cursor: first.nextCursor! })).items, clients.slice(4, 7), 'a record deleted between pages is skipped');
    // The cursor's own entry deleted: the next page still starts after it, in its millisecond too.
    const two = await store.listClients({ limit: 2 });
    await store.deleteClient(clients[1]!.clientId);
    t.same((await store.listClients({ limit: 2, cursor: two.nextCursor! })).items, [clients[2], clients[4]], 'a deleted cursor entry still marks the place');
    const four = await store.listClients({ limit: 4 });
    t.same(await store.listClients({ limit: 1, cursor: four.nextCursor! }), { items: [clients[6]], nextCursor: null }, 'the last page ends the list');
  });

  t.test('serviceAccountForRequest: the account and whether the nonce was used; writes nothing', async (t) => {
    const store = await factory(t);
    const a = serviceAccountRecord();
    await store.createServiceAccount(a);
    const first = await store.serviceAccountForRequest(a.accessId, 'nonce-1');
    t.equal(first.nonceUsed, false);
    t.equal(first.account?.id, a.id);
    t.equal(first.account?.accessId, a.accessId);
    t.same(first.account?.permissions, a.permissions);
    t.same(first.account?.allowedIps, a.allowedIps);
    t.equal(first.account?.publicKeyBytes, a.publicKeyBytes);
    t.equal((await store.serviceAccountForRequest(a.accessId, 'nonce-1')).nonceUsed, false, 'looking up does not consume the nonce');
    t.same(await store.serviceAccountForRequest(randomUUID(), 'nonce-1'), { account: null, nonceUsed: false }, 'unknown Access ID');
  });

  t.test('consumeNonce: single use per Access ID, only for a live account', async (t) => {
    const store = await factory(t);
    const a = serviceAccountRecord();
    const b = serviceAccountRecord();
    await store.createServiceAccount(a);
    await store.createServiceAccount(b);
    t.equal(await store.consumeNonce(a.accessId, 'nonce-1', 300), 'fresh');
    t.equal(await store.consumeNonce(a.accessId, 'nonce-1', 300), 'used', 'a nonce is consumed once');
    t.equal((await store.serviceAccountForRequest(a.accessId, 'nonce-1')).nonceUsed, true, 'the lookup sees the used nonce');
    t.equal(await store.consumeNonce(a.accessId, 'nonce-2', 300), 'fresh');
    t.equal(await store.consumeNonce(b.accessId, 'nonce-1', 300), 'fresh', 'nonces are per Access ID');
    t.equal(await store.consumeNonce(randomUUID(), 'nonce-3', 300), 'account_gone', 'unknown Access ID');
    await store.deleteServiceAccount(b.id);
    t.equal(await store.consumeNonce(b.accessId, 'nonce-4', 300), 'account_gone', 'a deleted account consumes nothing');
    t.equal(await store.consumeNonce(a.accessId, 'nonce-3', 300), 'fresh', 'a nonce sent with an unknown Access ID was not consumed');
  });

  t.test('consumeNonce with a version: only while the record is still that version', async (t) => {
    const store = await factory(t);
    const a = serviceAccountRecord();
    await store.createServiceAccount(a);
    const read = await store.serviceAccountForRequest(a.accessId, 'n');
    if (!read.account) throw new Error('the account was not found');
    const { version } = read;
    t.match(version, /^\S+$/, 'a version comes with the account');
    await store.recordServiceAccountUse([{ accessId: a.accessId, at: '2026-02-01T10:00:00.000Z', ip: '10.0.0.1', fingerprint: a.fingerprint }]);
    const afterUse = await store.serviceAccountForRequest(a.accessId, 'n');
    t.equal(afterUse.account && afterUse.version, version, 'using the account does not change its version');
    t.equal(await store.consumeNonce(a.accessId, 'nonce-1', 300, version), 'fresh', 'the version read');
    t.equal(await store.consumeNonce(a.accessId, 'nonce-1', 300, version), 'used');

    const second = { publicKey: 'ssh-ed25519 AAAA second', publicKeyBytes: 'B'.repeat(43), fingerprint: 'SHA256:second', addedAt: '2026-03-01T00:00:00.000Z' };
    t.equal((await store.addServiceAccountKey(a.id, second)).outcome, 'added');
    t.equal(await store.consumeNonce(a.accessId, 'nonce-2', 300, version), 'account_changed', 'a key added: the old version no longer consumes');
    t.equal((await store.serviceAccountForRequest(a.accessId, 'nonce-2')).nonceUsed, false, 'nothing was consumed');
    const added = await store.serviceAccountForRequest(a.accessId, 'n');
    if (!added.account) throw new Error('the account was not found');
    t.not(added.version, version, 'a change gives a new version');
    t.equal((await store.removeServiceAccountKey(a.id, second.fingerprint)).outcome, 'removed');
    t.equal(await store.consumeNonce(a.accessId, 'nonce-2', 300, added.version), 'account_changed', 'a key removed: likewise');
    const removed = await store.serviceAccountForRequest(a.accessId, 'n');
    t.equal(removed.account && (await store.consumeNonce(a.accessId, 'nonce-2', 300, removed.version)), 'fresh', 'the current version consumes');
    t.equal(await store.consumeNonce(a.accessId, 'nonce-3', 300), 'fresh', 'without a version: any record');

    await store.deleteServiceAccount(a.id);
    t.equal(
      await store.consumeNonce(a.accessId, 'nonce-4', 300, removed.account ? removed.version : ''),
      'account_gone',
      'a deleted account: gone, whatever the version',
    );
  });

  t.test('consumeNonce: concurrent uses of one nonce, exactly one is fresh', async (t) => {
    const store = await factory(t);
    const a = serviceAccountRecord();
    await store.createServiceAccount(a);
    const results = await Promise.all(Array.from({ length: 10 }, () => store.consumeNonce(a.accessId, 'same', 300)));
    t.equal(results.filter((r) => r === 'fresh').length, 1);
    t.equal(results.filter((r) => r === 'used').length, 9);
  });

  t.test('consumeNonce: a nonce is fresh again after its window', async (t) => {
    const store = await factory(t);
    const a = serviceAccountRecord();
    await store.createServiceAccount(a);
    t.equal(await store.consumeNonce(a.accessId, 'short', 1), 'fresh');
    t.equal(await store.consumeNonce(a.accessId, 'short', 1), 'used');
    await time.pass(2100);
    t.equal(await store.consumeNonce(a.accessId, 'short', 1), 'fresh');
  });

  t.test('countCredentials: the clients and service accounts there are', async (t) => {
    const store = await factory(t);
    const before = await store.countCredentials();
    const [client, account] = [clientRecord(), serviceAccountRecord()];
    t.equal(await store.createClient(client), true);
    t.equal(await store.createServiceAccount(account), true);
    t.same(await store.countCredentials(), { clients: before.clients + 1, serviceAccounts: before.serviceAccounts + 1 });
    t.equal(await store.deleteClient(client.clientId), true);
    t.same(await store.countCredentials(), { clients: before.clients, serviceAccounts: before.serviceAccounts + 1 }, 'a deleted client is not counted');
  });

  t.test('consumeTokenId: a client assertion jti is single use per client, until after its exp', async (t) => {
    const store = await factory(t);
    const exp = Math.floor(Date.now() / 1000) + 120;
    const [a, b] = [randomUUID(), randomUUID()];
    t.equal(await store.consumeTokenId(a, 'client_assertion', 'jti-1', exp), true, 'fresh');
    t.equal(await store.consumeTokenId(a, 'client_assertion', 'jti-1', exp), false, 'a replay');
    t.equal(await store.consumeTokenId(b, 'client_assertion', 'jti-1', exp), true, "another client's jti is its own");
    t.equal(await store.consumeTokenId(a, 'client_assertion', 'jti-2', exp), true);
    const long = 'j'.repeat(256);
    t.equal(await store.consumeTokenId(a, 'client_assertion', long, exp), true);
    t.equal(await store.consumeTokenId(a, 'client_assertion', long, exp), false);
    await time.pass(1100);
    t.equal(await store.consumeTokenId(a, 'client_assertion', 'jti-1', exp), false, 'still used before exp');
  });

  t.test("consumeTokenId: a DPoP proof's jti and a client assertion's are kept apart", async (t) => {
    const store = await factory(t);
    const exp = Math.floor(Date.now() / 1000) + 120;
    const clientId = randomUUID();
    t.equal(await store.consumeTokenId(clientId, 'client_assertion', 'jti-1', exp), true);
    t.equal(await store.consumeTokenId(clientId, 'dpop_proof', 'jti-1', exp), true, 'the same jti in a DPoP proof is fresh');
    t.equal(await store.consumeTokenId(clientId, 'dpop_proof', 'jti-1', exp), false, 'and then used');
  });

  t.test('consumeTokenId: concurrent uses of one jti, exactly one is fresh', async (t) => {
    const store = await factory(t);
    const clientId = randomUUID();
    const exp = Math.floor(Date.now() / 1000) + 120;
    const results = await Promise.all(Array.from({ length: 10 }, () => store.consumeTokenId(clientId, 'client_assertion', 'same', exp)));
    t.equal(results.filter(Boolean).length, 1);
  });

  t.test('updateClient: the fields named change, nothing else; a refused change leaves the record; unknown client: null', async (t) => {
    const store = await factory(t);
    const key = (kid: string) => ({ kid, jwk: { kty: 'OKP', crv: 'Ed25519', x: kid, kid }, addedAt: '2026-01-01T00:00:00.000Z' });
    const client = clientRecord({ tokenEndpointAuthMethod: 'private_key_jwt', secretHash: null, jwks: [key('one')] });
    await store.createClient(client);
    const updated = await store.updateClient(client.clientId, (current) => ({ jwks: [...current.jwks, key('two')] }));
    t.same(updated, { ...client, jwks: [key('one'), key('two')] });
    const renamed = await store.updateClient(client.clientId, () => ({ name: 'renamed', scopes: ['sales'] }));
    t.same(renamed, { ...updated, name: 'renamed', scopes: ['sales'] }, 'name and scopes, the keys kept');
    t.same(await store.getClient(client.clientId), renamed);
    await t.rejects(
      store.updateClient(client.clientId, () => {
        throw new Error('refused');
      }),
      { message: 'refused' },
    );
    t.same(await store.getClient(client.clientId), renamed, 'unchanged by a refused change');
    t.equal(await store.updateClient(randomUUID(), () => ({})), null);
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
      { accessId: a.accessId, at: '2026-02-01T10:00:00.000Z', ip: '10.0.0.1', fingerprint: a.fingerprint },
      { accessId: gone.accessId, at: '2026-02-01T10:00:00.000Z', ip: '10.0.0.2', fingerprint: gone.fingerprint },
      { accessId: randomUUID(), at: '2026-02-01T10:00:00.000Z', ip: '10.0.0.3', fingerprint: 'SHA256:unknown' },
    ]);
    await store.recordServiceAccountUse([{ accessId: a.accessId, at: '2026-02-01T11:00:00.000Z', ip: '10.0.0.9', fingerprint: a.fingerprint }]);
    const read = await store.getServiceAccount(a.id);
    t.equal(read?.lastUsedAt, '2026-02-01T11:00:00.000Z');
    t.equal(read?.lastUsedIp, '10.0.0.9');
    const used = {
      ...a,
      publicKeys: a.publicKeys.map((k) => ({ ...k, lastUsedAt: '2026-02-01T11:00:00.000Z' })),
      lastUsedAt: '2026-02-01T11:00:00.000Z',
      lastUsedIp: '10.0.0.9',
    };
    t.same((await store.listServiceAccounts({ limit: 10 })).items, [used]);
    t.same(await store.findServiceAccountByAccessId(a.accessId), used);
    t.equal(await store.getServiceAccount(gone.id), null, 'a use does not bring a deleted account back');
    t.same(await store.serviceAccountForRequest(gone.accessId, 'n'), { account: null, nonceUsed: false });
  });

  t.test("recordServiceAccountUse: each key's own last use, through a rotation", async (t) => {
    const store = await factory(t);
    const a = serviceAccountRecord();
    await store.createServiceAccount(a);
    const second = { publicKey: 'ssh-ed25519 second new-key', publicKeyBytes: 'c2Vjb25k', fingerprint: 'SHA256:second', addedAt: '2026-02-01T09:00:00.000Z' };
    t.equal((await store.addServiceAccountKey(a.id, second)).outcome, 'added');
    const lastUses = async () => (await store.getServiceAccount(a.id))!.publicKeys.map((k) => [k.fingerprint, k.lastUsedAt ?? null]);
    t.same(await lastUses(), [
      [a.fingerprint, null],
      ['SHA256:second', null],
    ]);
    await store.recordServiceAccountUse([{ accessId: a.accessId, at: '2026-02-01T10:00:00.000Z', ip: '10.0.0.1', fingerprint: a.fingerprint }]);
    await store.recordServiceAccountUse([{ accessId: a.accessId, at: '2026-02-01T10:05:00.000Z', ip: '10.0.0.1', fingerprint: 'SHA256:second' }]);
    t.same(
      await lastUses(),
      [
        [a.fingerprint, '2026-02-01T10:00:00.000Z'],
        ['SHA256:second', '2026-02-01T10:05:00.000Z'],
      ],
      'the program moved to the new key: its use is newer than the old one',
    );
    t.equal((await store.removeServiceAccountKey(a.id, a.fingerprint)).outcome, 'removed');
    await store.recordServiceAccountUse([{ accessId: a.accessId, at: '2026-02-01T10:06:00.000Z', ip: '10.0.0.1', fingerprint: 'SHA256:second' }]);
    t.same(await lastUses(), [['SHA256:second', '2026-02-01T10:06:00.000Z']], 'the removed key leaves the record of uses');
    t.equal((await store.getServiceAccount(a.id))!.lastUsedAt, '2026-02-01T10:06:00.000Z');
  });

  t.test('reserveAttempt: counts each key up to its max, then refuses until the window ends', async (t) => {
    const store = await factory(t);
    t.same(await store.reserveAttempt([], 60), { allowed: true, retryAfterSeconds: 0 }, 'no keys, nothing to refuse');
    const limits = [
      { key: 'pair:x', max: 2 },
      { key: 'ip:1.2.3.4', max: 3 },
    ];
    t.same(await store.reserveAttempt(limits, 60), { allowed: true, retryAfterSeconds: 0 });
    t.same(await store.reserveAttempt(limits, 3600), { allowed: true, retryAfterSeconds: 0 });
    const refused = await store.reserveAttempt(limits, 60);
    t.equal(refused.allowed, false, 'pair:x is at its max of 2');
    t.ok(
      refused.retryAfterSeconds >= 59 && refused.retryAfterSeconds <= 60,
      `retry after ${refused.retryAfterSeconds}: the window started at the first attempt, not extended to 3600`,
    );
    t.same(
      await store.reserveAttempt([{ key: 'ip:1.2.3.4', max: 3 }], 60),
      { allowed: true, retryAfterSeconds: 0 },
      'the refusal counted nothing: ip is at 2 of 3',
    );
    t.equal((await store.reserveAttempt([{ key: 'ip:1.2.3.4', max: 3 }], 60)).allowed, false, 'now ip is at 3');
    t.same(await store.reserveAttempt([{ key: 'pair:y', max: 1 }], 60), { allowed: true, retryAfterSeconds: 0 }, 'keys are independent');
    const both = await store.reserveAttempt(
      [
        { key: 'pair:y', max: 1 },
        { key: 'other', max: 5 },
      ],
      60,
    );
    t.equal(both.allowed, false, 'one key at its max refuses the whole attempt');
    t.same(await store.reserveAttempt([{ key: 'other', max: 1 }], 60), { allowed: true, retryAfterSeconds: 0 }, 'and counts none of the others');
  });

  t.test('checkAttempt: reads the counters only, refusing until the last blocking window ends', async (t) => {
    const store = await factory(t);
    const free = { allowed: true, retryAfterSeconds: 0 };
    t.same(await store.checkAttempt([]), free, 'no keys, nothing to refuse');
    t.same(await store.checkAttempt([{ key: 'pair:c', max: 1 }]), free, 'a counter never used');
    for (let i = 0; i < 3; i++) t.same(await store.checkAttempt([{ key: 'pair:c', max: 1 }]), free, 'checking counts nothing');
    await store.reserveAttempt([{ key: 'pair:c', max: 1 }], 5);
    await store.reserveAttempt([{ key: 'ip:c', max: 1 }], 120);
    t.same(await store.checkAttempt([{ key: 'pair:c', max: 2 }]), free, 'under a higher max');
    const refused = await store.checkAttempt([
      { key: 'pair:c', max: 1 },
      { key: 'ip:c', max: 1 },
      { key: 'unused', max: 1 },
    ]);
    t.equal(refused.allowed, false, 'a key at its max refuses');
    t.ok(refused.retryAfterSeconds > 5 && refused.retryAfterSeconds <= 120, `retry after ${refused.retryAfterSeconds}: the longer window`);
  });

  t.test('reserveAttempt: a refusal waits for the last blocking window', async (t) => {
    const store = await factory(t);
    await store.reserveAttempt([{ key: 'short', max: 1 }], 5);
    await store.reserveAttempt([{ key: 'long', max: 1 }], 120);
    const refused = await store.reserveAttempt(
      [
        { key: 'short', max: 1 },
        { key: 'long', max: 1 },
      ],
      60,
    );
    t.equal(refused.allowed, false);
    t.ok(refused.retryAfterSeconds > 5 && refused.retryAfterSeconds <= 120, `retry after ${refused.retryAfterSeconds}`);
  });

  t.test('reserveAttempt: counts lapse when the window ends', async (t) => {
    const store = await factory(t);
    const limits = [{ key: 'ip:9.9.9.9', max: 2 }];
    await store.reserveAttempt(limits, 1);
    await store.reserveAttempt(limits, 1);
    const refused = await store.reserveAttempt(limits, 1);
    t.same(refused, { allowed: false, retryAfterSeconds: 1 });
    await time.pass(2100);
    t.same(await store.reserveAttempt(limits, 60), { allowed: true, retryAfterSeconds: 0 }, 'a new window');
    t.same(await store.reserveAttempt(limits, 60), { allowed: true, retryAfterSeconds: 0 }, 'that started from zero');
    t.equal((await store.reserveAttempt(limits, 60)).allowed, false);
  });

  t.test('releaseAttempt gives a reservation back, and never goes below zero', async (t) => {
    const store = await factory(t);
    const limits = [
      { key: 'pair:z', max: 2 },
      { key: 'ip:5.5.5.5', max: 2 },
    ];
    await store.reserveAttempt(limits, 60);
    await store.reserveAttempt(limits, 60);
    t.equal((await store.reserveAttempt(limits, 60)).allowed, false);
    await store.releaseAttempt(['pair:z', 'ip:5.5.5.5']);
    t.same(await store.reserveAttempt(limits, 60), { allowed: true, retryAfterSeconds: 0 }, 'one attempt free again');
    t.equal((await store.reserveAttempt(limits, 60)).allowed, false);
    await store.releaseAttempt(['pair:z', 'ip:5.5.5.5']);
    await store.releaseAttempt(['pair:z', 'ip:5.5.5.5']);
    await store.releaseAttempt(['pair:z', 'ip:5.5.5.5']);
    await store.releaseAttempt(['never-reserved']);
    await store.reserveAttempt(limits, 60);
    await store.reserveAttempt(limits, 60);
    t.equal((await store.reserveAttempt(limits, 60)).allowed, false, 'extra releases did not bank attempts below zero');
  });

  t.test('releaseAttempt after the window lapsed leaves no counter behind', async (t) => {
    const store = await factory(t);
    const limits = [{ key: 'lapsed', max: 1 }];
    await store.reserveAttempt(limits, 1);
    await time.pass(1100);
    await store.releaseAttempt(['lapsed']);
    t.same(await store.reserveAttempt(limits, 1), { allowed: true, retryAfterSeconds: 0 });
    const refused = await store.reserveAttempt(limits, 1);
    t.same(refused, { allowed: false, retryAfterSeconds: 1 }, 'the late release banked no attempt below zero');
  });

  t.test('reserveAttempt: 50 concurrent reservations against max 10 allow exactly 10', async (t) => {
    const store = await factory(t);
    const limits = [
      { key: 'race:pair', max: 10 },
      { key: 'race:ip', max: 1000 },
    ];
    const results = await Promise.all(Array.from({ length: 50 }, () => store.reserveAttempt(limits, 60)));
    t.equal(results.filter((r) => r.allowed).length, 10);
    t.ok(results.filter((r) => !r.allowed).every((r) => r.retryAfterSeconds >= 1 && r.retryAfterSeconds <= 60));
    t.equal((await store.reserveAttempt([{ key: 'race:ip', max: 10 }], 60)).allowed, false, 'race:ip counted the 10 allowed');
    t.equal((await store.reserveAttempt([{ key: 'race:ip', max: 11 }], 60)).allowed, true, 'and none of the 40 refused');
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
    await time.pass(2100);
    t.equal(await store.getSession('s2'), null, 'an expired session is gone');
  });

  t.test('ping answers while the store is up', async (t) => {
    const store = await factory(t);
    await t.resolves(store.ping());
  });
  rateLimitContract(t, factory, time);
}
