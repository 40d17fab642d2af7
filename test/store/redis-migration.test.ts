// The layout migration on the shared test Redis (one prefix per subtest). Version 2, the one-time
// move from the first key layout to the Cluster layout: everything that matters moves, once, even
// with several instances starting together; old revocation marks are still honoured; a second start
// changes nothing. Version 3, records in their current shape: records stored in older shapes are
// upgraded once, read as before, and neither concurrent migrations nor changes made meanwhile lose
// anything (redis-migration-gateway.test.ts serves them through a whole gateway).
import { randomUUID } from 'node:crypto';
import t, { type Test } from 'tap';
import { Redis } from 'ioredis';
import { upgradedJson, type RecordKind } from '../../gateway/store/record-upgrades.js';
import { RedisKeys } from '../../gateway/store/redis-keys.js';
import { migrateLayout } from '../../gateway/store/redis-layout-migration.js';
import type { UpgradeCounts } from '../../gateway/store/redis-record-upgrade.js';
import { withServiceAccountKeys } from '../../gateway/store/service-account-keys.js';
import { RedisCredentialStore } from '../../gateway/store/redis-store.js';
import type { ClientRecord, ServiceAccountRecord } from '../../gateway/store/types.js';
import { deleteKeysWithPrefix, TEST_REDIS_URL, uniquePrefix } from '../helpers/redis.js';
import { clientRecord, serviceAccountRecord } from './contract.js';
import { firstKeySetForm, KEY_SET_META, olderAccountJson, olderClientJson, storeOlderShapes, version3ClientJson, version4ClientJson } from './older-records.js';

interface OldData {
  prefix: string;
  clients: ReturnType<typeof clientRecord>[];
  accounts: ReturnType<typeof serviceAccountRecord>[];
  jti: string;
}

/**
 * Writes what the first layout held: clients, accounts with usage, a used nonce, a revocation, meta,
 * a session, a failure counter; the records in the current shape, or (`older`) in the shapes of the
 * first layout's time, without the fields added since.
 */
async function writeOldLayout(redis: Redis, prefix: string, count: number, shapes: 'current' | 'older' = 'current'): Promise<OldData> {
  const clients = Array.from({ length: count }, () => clientRecord());
  const accounts = Array.from({ length: count }, () => serviceAccountRecord());
  const jti = randomUUID();
  const batch = redis.multi();
  const clientJson = (c: ClientRecord) => (shapes === 'older' ? olderClientJson(c) : JSON.stringify(c));
  const accountJson = ({ lastUsedAt: _at, lastUsedIp: _ip, ...stored }: ServiceAccountRecord) =>
    shapes === 'older' ? olderAccountJson({ ...stored, lastUsedAt: null, lastUsedIp: null }) : JSON.stringify(stored);
  for (const c of clients) batch.set(`${prefix}client:${c.clientId}`, clientJson(c)).sadd(`${prefix}clients`, c.clientId);
  for (const a of accounts) {
    batch.set(`${prefix}sa:${a.id}`, a.accessId).set(`${prefix}sa-access:${a.accessId}`, accountJson(a)).sadd(`${prefix}sas`, a.id);
  }
  batch.set(`${prefix}sa-used:${accounts[0]!.accessId}`, JSON.stringify({ at: '2026-01-02T00:00:00.000Z', ip: '10.9.9.9' }));
  batch.set(`${prefix}nonce:${accounts[0]!.accessId}:old-nonce`, '1', 'EX', 300);
  batch.set(`${prefix}revoked:${jti}`, '1', 'EX', 600);
  batch.set(`${prefix}meta:jwt-signing-keys`, '{"keys":[]}');
  batch.set(`${prefix}session:s1`, 'session-data', 'EX', 600);
  batch.set(`${prefix}fail:oauth:address:1.2.3.4`, '3', 'EX', 250);
  await batch.exec();
  return { prefix, clients, accounts, jti };
}

/** A prefix of the test's own, a connection to it, and stores opened on it, all gone after the test. */
function onPrefix(t: Test, label: string) {
  const redis = new Redis(TEST_REDIS_URL);
  const prefix = uniquePrefix(label);
  const stores: RedisCredentialStore[] = [];
  t.teardown(async () => {
    await Promise.all(stores.map((s) => s.close()));
    redis.disconnect();
    await deleteKeysWithPrefix(prefix);
  });
  const open = () => {
    const store = new RedisCredentialStore(TEST_REDIS_URL, prefix);
    stores.push(store);
    return store;
  };
  return { redis, prefix, keys: new RedisKeys(prefix), open };
}

async function setup(t: Test, count = 3, shapes: 'current' | 'older' = 'current') {
  const { redis, prefix, open } = onPrefix(t, 'migrate');
  const data = await writeOldLayout(redis, prefix, count, shapes);
  return { redis, data, open };
}

t.test('a store opened on the first layout moves it, and serves everything from the new one', async (t) => {
  const { redis, data, open } = await setup(t);
  const store = open();
  await store.connect();
  t.same(store.migration?.moved, { clients: 3, serviceAccounts: 3, nonces: 1, failureCounters: 1 });
  // Created in one millisecond (and moved with score 0 until the start-up repair scores them): by id, descending.
  const byId =
    <T>(id: (x: T) => string) =>
    (x: T, y: T) =>
      id(x) > id(y) ? -1 : 1;
  const used = { ...data.accounts[0]!, lastUsedAt: '2026-01-02T00:00:00.000Z', lastUsedIp: '10.9.9.9' };
  const accounts = [used, ...data.accounts.slice(1)].sort(byId((a) => a.id));
  t.same(await store.listClients({ limit: 10 }), { items: [...data.clients].sort(byId((c) => c.clientId)), nextCursor: null });
  t.same(await store.listServiceAccounts({ limit: 10 }), { items: accounts, nextCursor: null }, 'accounts moved with their usage');
  t.same(await store.getServiceAccount(used.id), used);
  t.same(await store.findServiceAccountByAccessId(used.accessId), used);

  t.equal((await store.serviceAccountForRequest(used.accessId, 'old-nonce')).nonceUsed, true, 'a nonce used before the move still blocks its replay');
  t.equal(await store.consumeNonce(used.accessId, 'old-nonce', 300), 'used');
  const nonceTtl = await redis.ttl(`${data.prefix}sa:{${used.accessId}}:nonce:old-nonce`);
  t.ok(nonceTtl > 0 && nonceTtl <= 300, `and keeps what was left of its lifetime (${nonceTtl} s)`);

  const client = data.clients[0]!;
  t.same(
    await store.bearerState(client.clientId, data.jti, 'kid'),
    { client, revoked: true, signingKeyRetired: false },
    'an old revocation mark is still honoured',
  );
  t.same(await store.bearerState(client.clientId, randomUUID(), 'kid'), { client, revoked: false, signingKeyRetired: false });
  t.equal(await store.getMeta('jwt-signing-keys'), '{"keys":[]}', 'meta keys keep their names');
  t.equal(await store.getSession('s1'), 'session-data', 'sessions keep their names');
  // Seeded with 250 s left of its window: the moved counter keeps what was left (less the seconds
  // this test has taken), not a fresh 300 s window.
  const attempt = await store.reserveAttempt([{ key: 'oauth:address:1.2.3.4', max: 3 }], 300);
  t.equal(attempt.allowed, false, 'failure counters moved with their count...');
  t.ok(attempt.retryAfterSeconds <= 250 && attempt.retryAfterSeconds > 200, `...and what was left of their window (${attempt.retryAfterSeconds} s)`);

  const left = (await redis.keys(`${data.prefix}*`))
    .map((k) => k.slice(data.prefix.length))
    .filter((k) => !k.includes('{') && !k.startsWith('index:') && !k.startsWith('layout:'));
  t.same(left.sort(), ['meta:jwt-signing-keys', `revoked:${data.jti}`, 'session:s1'].sort(), 'no other key of the first layout is left');
  t.equal(await redis.get(`${data.prefix}layout:version`), '5');

  const again = open();
  await again.connect();
  t.same(again.migration?.moved, { clients: 0, serviceAccounts: 0, nonces: 0, failureCounters: 0 }, 'a second start moves nothing');
  t.same(
    await again.bearerState(client.clientId, data.jti, 'kid'),
    { client, revoked: true, signingKeyRetired: false },
    'and honours the old revocation marks too',
  );
  t.equal(await again.deleteServiceAccount(used.id), true, 'a moved account is deleted like any other');
  t.same(await again.serviceAccountForRequest(used.accessId, 'n'), { account: null, nonceUsed: false });
});

t.test('several instances starting together move each record exactly once', async (t) => {
  const { data, open } = await setup(t, 40);
  const stores = [open(), open(), open()];
  await Promise.all(stores.map((s) => s.connect()));
  const total = stores
    .map((s) => s.migration!.moved)
    .reduce((sum, m) => ({
      clients: sum.clients + m.clients,
      serviceAccounts: sum.serviceAccounts + m.serviceAccounts,
      nonces: sum.nonces + m.nonces,
      failureCounters: sum.failureCounters + m.failureCounters,
    }));
  t.same(total, { clients: 40, serviceAccounts: 40, nonces: 1, failureCounters: 1 });
  t.equal((await stores[0]!.listClients({ limit: 100 })).items.length, 40);
  t.equal((await stores[1]!.listServiceAccounts({ limit: 100 })).items.length, 40);
  for (const a of data.accounts) t.equal((await stores[2]!.serviceAccountForRequest(a.accessId, 'n')).account?.id, a.id);
});

t.test('a fresh store (no old keys) only records the layout version', async (t) => {
  const prefix = uniquePrefix('fresh');
  const store = new RedisCredentialStore(TEST_REDIS_URL, prefix);
  t.teardown(async () => {
    await store.close();
    await deleteKeysWithPrefix(prefix);
  });
  await store.connect();
  t.same(store.migration, {
    moved: { clients: 0, serviceAccounts: 0, nonces: 0, failureCounters: 0 },
    upgraded: { clients: 0, serviceAccounts: 0, signingKeySets: 0 },
    legacyRevocationsUntil: 0,
  });
  const redis = new Redis(TEST_REDIS_URL);
  t.teardown(() => redis.disconnect());
  t.same(await redis.keys(`${prefix}*`), [`${prefix}layout:version`]);
});

// Version 3: records in their current shape.

const NO_MOVES = { clients: 0, serviceAccounts: 0, nonces: 0, failureCounters: 0 };
const NO_UPGRADES = { clients: 0, serviceAccounts: 0, signingKeySets: 0 };

/** A stored signing key (its key material is not used here: the store only keeps the set). */
function storedKey(kid: string, createdAt: string) {
  return {
    kid,
    alg: 'EdDSA' as const,
    privateJwk: { kty: 'OKP', crv: 'Ed25519', x: kid, d: kid },
    publicJwk: { kty: 'OKP', crv: 'Ed25519', x: kid },
    createdAt,
  };
}
const ACTIVE = storedKey('active', '2026-02-01T00:00:00.000Z');
const PREVIOUS = storedKey('previous', '2026-01-01T00:00:00.000Z');
/** The key set a current reader finds for the first form { active: ACTIVE, previous: PREVIOUS }. */
const UPGRADED_KEY_SET = { active: ACTIVE, retired: [{ ...PREVIOUS, retiredAt: ACTIVE.createdAt }], withdrawn: [] };

/**
 * A store of layout version 2 holding `count` clients and accounts in older shapes (made by a
 * current store, so with their indexes and id pointers) and the key set in its first form, beside
 * `current` records, which are already in the current shape.
 */
async function olderStore(t: Test, count: number, current: { clients?: ClientRecord[]; accounts?: ServiceAccountRecord[] } = {}) {
  const on = onPrefix(t, 'upgrade');
  const clients = Array.from({ length: count }, () => clientRecord());
  const accounts = Array.from({ length: count }, () => serviceAccountRecord());
  const writer = on.open();
  await writer.connect();
  for (const c of [...clients, ...(current.clients ?? [])]) t.equal(await writer.createClient(c), true);
  for (const a of [...accounts, ...(current.accounts ?? [])]) t.equal(await writer.createServiceAccount(a), true);
  await storeOlderShapes(on.redis, on.prefix, { clients, accounts, keySet: JSON.stringify(firstKeySetForm(UPGRADED_KEY_SET)) });
  return { ...on, clients, accounts };
}

/** How many of these records are still in an older shape. */
async function stillOlder(redis: Redis, keys: RedisKeys, clients: ClientRecord[], accounts: ServiceAccountRecord[]): Promise<number> {
  const entries: [RecordKind, string][] = [
    ...clients.map((c): [RecordKind, string] => ['client', keys.client(c.clientId)]),
    ...accounts.map((a): [RecordKind, string] => ['serviceAccount', keys.account(a.accessId)]),
    ['signingKeySet', keys.meta(KEY_SET_META)],
  ];
  const raws = await Promise.all(entries.map(([, key]) => redis.get(key)));
  return entries.filter(([kind], i) => upgradedJson(kind, raws[i]!) !== null).length;
}

t.test('a version-2 store: records in older shapes are upgraded once and read as the older readers read them', async (t) => {
  const rolled = clientRecord({ resourceServer: true, previousSecretHash: 'b'.repeat(64), previousSecretExpiresAt: '2026-05-01T00:00:00.000Z' });
  const first = { publicKey: 'ssh-ed25519 AAAA first', publicKeyBytes: 'A'.repeat(43), fingerprint: 'SHA256:first', addedAt: '2026-02-01T00:00:00.000Z' };
  const second = { publicKey: 'ssh-ed25519 AAAA second', publicKeyBytes: 'B'.repeat(43), fingerprint: 'SHA256:second', addedAt: '2026-03-01T00:00:00.000Z' };
  const rotating = withServiceAccountKeys(serviceAccountRecord({ expiresAt: '2031-05-01T12:00:00.000Z' }), [first, second]);
  const { redis, keys, clients, accounts, open } = await olderStore(t, 3, { clients: [rolled], accounts: [rotating] });
  const currentRaws = await redis.mget(keys.client(rolled.clientId), keys.account(rotating.accessId));

  const store = open();
  await store.connect();
  t.same(store.migration, { moved: NO_MOVES, upgraded: { clients: 3, serviceAccounts: 3, signingKeySets: 1 }, legacyRevocationsUntil: 0 });
  t.equal(await redis.get(keys.layoutVersion), '5', 'the version is recorded once every record is current');
  t.equal(await stillOlder(redis, keys, clients, accounts), 0);

  // clientRecord() and serviceAccountRecord() make records as the older readers read these: no
  // resource server, no expiry, the top-level key as the only one, added when the account was made.
  for (const c of clients) {
    t.same(await store.getClient(c.clientId), c);
    t.same((await store.bearerState(c.clientId, 'jti', 'kid')).client, c);
    t.equal(await redis.get(keys.client(c.clientId)), JSON.stringify(c), 'stored as a current store writes it');
  }
  for (const a of accounts) {
    t.same(await store.getServiceAccount(a.id), a);
    t.same((await store.serviceAccountForRequest(a.accessId, 'n')).account, a, 'the hot-path read too');
  }
  t.equal((await store.listClients({ limit: 10 })).items.length, 4);
  t.same(
    JSON.parse((await store.getMeta(KEY_SET_META))!),
    UPGRADED_KEY_SET,
    'the first key set form: its previous key rotated out when the active one was made',
  );
  t.same(await redis.mget(keys.client(rolled.clientId), keys.account(rotating.accessId)), currentRaws, 'current records are not rewritten');
  t.same(await store.getServiceAccount(rotating.id), rotating);

  const third = { ...second, publicKey: 'ssh-ed25519 AAAA third', publicKeyBytes: 'C'.repeat(43), fingerprint: 'SHA256:third' };
  t.equal((await store.removeServiceAccountKey(accounts[0]!.id, accounts[0]!.fingerprint)).outcome, 'last_key', 'an upgraded account knows its one key');
  t.equal((await store.addServiceAccountKey(accounts[0]!.id, third)).outcome, 'added');

  const again = open();
  await again.connect();
  t.same(again.migration, { moved: NO_MOVES, upgraded: NO_UPGRADES, legacyRevocationsUntil: 0 }, 'a second start upgrades nothing');
});

t.test('a version-3 store: clients stored before tokenEndpointAuthMethod and jwks are upgraded once, as secret clients', async (t) => {
  const on = onPrefix(t, 'upgrade-v3');
  const clients = [clientRecord(), clientRecord({ resourceServer: true })];
  const writer = on.open();
  await writer.connect();
  for (const c of clients) t.equal(await writer.createClient(c), true);
  for (const c of clients) await on.redis.set(on.keys.client(c.clientId), version3ClientJson(c));
  await on.redis.set(on.keys.layoutVersion, '3');

  const store = on.open();
  await store.connect();
  t.same(store.migration, { moved: NO_MOVES, upgraded: { clients: 2, serviceAccounts: 0, signingKeySets: 0 }, legacyRevocationsUntil: 0 });
  t.equal(await on.redis.get(on.keys.layoutVersion), '5');
  for (const c of clients) {
    t.same(await store.getClient(c.clientId), { ...c, tokenEndpointAuthMethod: 'client_secret_basic', jwks: [] });
    t.equal(await on.redis.get(on.keys.client(c.clientId)), JSON.stringify(c), 'stored as a current store writes it');
  }
  const again = on.open();
  await again.connect();
  t.same(again.migration, { moved: NO_MOVES, upgraded: NO_UPGRADES, legacyRevocationsUntil: 0 }, 'a second start upgrades nothing');
});

t.test('a version-4 store: clients stored before dpopBoundAccessTokens are upgraded once, a proof optional', async (t) => {
  const on = onPrefix(t, 'upgrade-v4');
  const clients = [clientRecord(), clientRecord({ tokenEndpointAuthMethod: 'client_secret_post' })];
  const writer = on.open();
  await writer.connect();
  for (const c of clients) t.equal(await writer.createClient(c), true);
  for (const c of clients) await on.redis.set(on.keys.client(c.clientId), version4ClientJson(c));
  await on.redis.set(on.keys.layoutVersion, '4');

  const store = on.open();
  await store.connect();
  t.same(store.migration, { moved: NO_MOVES, upgraded: { clients: 2, serviceAccounts: 0, signingKeySets: 0 }, legacyRevocationsUntil: 0 });
  t.equal(await on.redis.get(on.keys.layoutVersion), '5');
  for (const c of clients) {
    t.same(await store.getClient(c.clientId), { ...c, dpopBoundAccessTokens: false });
    t.equal(await on.redis.get(on.keys.client(c.clientId)), JSON.stringify(c), 'stored as a current store writes it');
  }
});

t.test('a store of the first layout with records in older shapes goes through versions 2 and 3 in one start', async (t) => {
  const { redis, data, open } = await setup(t, 3, 'older');
  await redis.set(`${data.prefix}meta:${KEY_SET_META}`, JSON.stringify(firstKeySetForm(UPGRADED_KEY_SET)));
  const store = open();
  await store.connect();
  t.same(store.migration?.moved, { clients: 3, serviceAccounts: 3, nonces: 1, failureCounters: 1 });
  t.same(store.migration?.upgraded, { clients: 3, serviceAccounts: 3, signingKeySets: 1 });
  t.equal(await redis.get(`${data.prefix}layout:version`), '5');
  const used = { ...data.accounts[0]!, lastUsedAt: '2026-01-02T00:00:00.000Z', lastUsedIp: '10.9.9.9' };
  t.same(await store.getServiceAccount(used.id), used, 'moved with its usage, and upgraded');
  for (const a of data.accounts.slice(1)) t.same(await store.findServiceAccountByAccessId(a.accessId), a);
  for (const c of data.clients) t.same(await store.getClient(c.clientId), c);
  t.same(JSON.parse((await store.getMeta(KEY_SET_META))!), UPGRADED_KEY_SET);
});

t.test('several instances migrating at once upgrade each record exactly once', async (t) => {
  const { redis, keys, clients, accounts, open } = await olderStore(t, 40);
  const stores = [open(), open(), open()];
  await Promise.all(stores.map((s) => s.connect()));
  t.same(sumOf(stores.map((s) => s.migration!.upgraded)), { clients: 40, serviceAccounts: 40, signingKeySets: 1 });
  t.equal(await stillOlder(redis, keys, clients, accounts), 0);
  for (const a of accounts) t.same(await stores[1]!.getServiceAccount(a.id), a);
  t.equal(await redis.get(keys.layoutVersion), '5');
});

/**
 * The connection with one pause: just before the first EVAL on `key` (the migration's
 * compare-and-set of a record it read), `meanwhile` runs to its end.
 */
function pausedBeforeWriting(redis: Redis, key: string, meanwhile: () => Promise<void>): Redis {
  let paused = false;
  return new Proxy(redis, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (property !== 'eval') return value.bind(target);
      return async (...args: unknown[]) => {
        if (!paused && args[2] === key) {
          paused = true;
          await meanwhile();
        }
        return value.apply(target, args);
      };
    },
  });
}

type OlderStore = Awaited<ReturnType<typeof olderStore>>;

/** Upgrade counts of several migrations, added up. */
function sumOf(counts: UpgradeCounts[]): UpgradeCounts {
  return counts.reduce((sum, u) => ({
    clients: sum.clients + u.clients,
    serviceAccounts: sum.serviceAccounts + u.serviceAccounts,
    signingKeySets: sum.signingKeySets + u.signingKeySets,
  }));
}

interface Race {
  what: string;
  /** The key whose write the migration is paused before. */
  key: (older: OlderStore) => string;
  /** The change an operator makes meanwhile; true once it is made. */
  change: (admin: RedisCredentialStore, older: OlderStore) => Promise<boolean>;
  /** The record as read after both, and what it must be. */
  readBack: (reader: RedisCredentialStore, older: OlderStore) => Promise<[actual: unknown, expected: unknown]>;
}

/** The one key an account stored before key rotation holds once upgraded: its top-level key, added when it was made. */
function onlyKeyOf(account: ServiceAccountRecord) {
  return { publicKey: account.publicKey, publicKeyBytes: account.publicKeyBytes, fingerprint: account.fingerprint, addedAt: account.createdAt };
}

const SECOND_KEY = { publicKey: 'ssh-ed25519 AAAA second', publicKeyBytes: 'B'.repeat(43), fingerprint: 'SHA256:second', addedAt: '2026-03-01T00:00:00.000Z' };
const ROTATED_KEY_SET = {
  active: storedKey('next', '2026-03-01T00:00:00.000Z'),
  retired: [{ ...ACTIVE, retiredAt: '2026-03-01T00:00:00.000Z' }, ...UPGRADED_KEY_SET.retired],
  withdrawn: [],
};

const RACES: Race[] = [
  {
    what: 'a client secret rolled',
    key: ({ keys, clients }) => keys.client(clients[0]!.clientId),
    change: async (admin, { clients }) => (await admin.rollClientSecret(clients[0]!.clientId, 'c'.repeat(64), 0)) !== null,
    readBack: async (reader, { clients }) => [await reader.getClient(clients[0]!.clientId), { ...clients[0]!, secretHash: 'c'.repeat(64) }],
  },
  {
    what: 'a service account key added',
    key: ({ keys, accounts }) => keys.account(accounts[0]!.accessId),
    change: async (admin, { accounts }) => (await admin.addServiceAccountKey(accounts[0]!.id, SECOND_KEY)).outcome === 'added',
    readBack: async (reader, { accounts }) => [
      await reader.getServiceAccount(accounts[0]!.id),
      { ...accounts[0]!, publicKeys: [onlyKeyOf(accounts[0]!), SECOND_KEY] },
    ],
  },
  {
    what: 'the signing keys rotated',
    key: ({ keys }) => keys.meta(KEY_SET_META),
    change: (admin) => admin.compareAndSetMeta(KEY_SET_META, JSON.stringify(UPGRADED_KEY_SET), JSON.stringify(ROTATED_KEY_SET)),
    readBack: async (reader) => [JSON.parse((await reader.getMeta(KEY_SET_META))!), ROTATED_KEY_SET],
  },
];

t.test('a change made while a migration runs is not lost: a record is written only while it is still what was read', async (t) => {
  for (const race of RACES) {
    t.test(race.what, async (t) => {
      const older = await olderStore(t, 3);
      const { redis, keys, open } = older;
      // Between this migration's read of the record and its write, another instance migrates the
      // whole store and serves, and an operator changes that record through it.
      const other = open();
      let changed = false;
      const racing = pausedBeforeWriting(redis, race.key(older), async () => {
        await other.connect();
        changed = await race.change(other, older);
      });
      const migrated = await migrateLayout(racing, keys);
      t.equal(changed, true, 'the other instance made its change meanwhile');
      t.equal(await stillOlder(redis, keys, older.clients, older.accounts), 0);
      t.same(
        sumOf([migrated.upgraded, other.migration!.upgraded]),
        { clients: 3, serviceAccounts: 3, signingKeySets: 1 },
        'each record upgraded once, by one of them',
      );
      const reader = open();
      await reader.connect();
      const [actual, expected] = await race.readBack(reader, older);
      t.same(actual, expected, 'the change is kept');
    });
  }
});

t.test('an interrupted upgrade leaves the version at 2, and the next start finishes it', async (t) => {
  const { redis, keys, clients, accounts, open } = await olderStore(t, 5);
  let writes = 0;
  const failing = new Proxy(redis, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (property !== 'eval') return value.bind(target);
      return (...args: unknown[]) => (++writes === 3 ? Promise.reject(new Error('connection lost')) : value.apply(target, args));
    },
  });
  await t.rejects(migrateLayout(failing, keys), { message: 'connection lost' });
  t.equal(await redis.get(keys.layoutVersion), '2', 'the version is recorded last');
  const left = await stillOlder(redis, keys, clients, accounts);
  t.ok(left >= 1, `records left in an older shape: ${left}`);
  const store = open();
  await store.connect();
  const u = store.migration!.upgraded;
  t.equal(u.clients + u.serviceAccounts + u.signingKeySets, left, 'the next start upgrades what was left, and only that');
  t.equal(await stillOlder(redis, keys, clients, accounts), 0);
  t.equal(await redis.get(keys.layoutVersion), '5');
});

t.test('a store at the current version: the check is one round trip of two GETs, nothing scanned or written', async (t) => {
  const { redis, keys, open } = await olderStore(t, 2);
  await open().connect();
  const calls: string[] = [];
  const counting = new Proxy(redis, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(`${String(property)} ${String(args[0])}`);
        return value.apply(target, args);
      };
    },
  });
  t.same(await migrateLayout(counting, keys), { moved: NO_MOVES, upgraded: NO_UPGRADES, legacyRevocationsUntil: 0 });
  t.same(calls, [`get ${keys.layoutVersion}`, `get ${keys.legacyRevocationsUntil}`]);
});
