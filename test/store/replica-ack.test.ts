// Changes confirmed on a replica (gateway/store/replica-ack.ts), on a master and replica of this
// file's own whose replication link the test holds: every security-relevant write is answered only
// once the replica has it; held behind, it fails as not confirmed (never as done) while the master
// has it and the replica does not; a repeat (from any connection) is confirmed only once the replica
// caught up; a used nonce waits too with GATEWAY_REDIS_NONCE_FAILOVER=wait, and single-use JWT ids
// and FAPI nonces always.
import { randomUUID } from 'node:crypto';
import t, { type Test } from 'tap';
import { serviceAccountIdFor } from '../../gateway/store/account-ids.js';
import { RedisCredentialStore, type RedisStoreOptions } from '../../gateway/store/redis-store.js';
import { barrierKey, ChangeNotConfirmedError } from '../../gateway/store/replica-ack.js';
import { StoreUnavailableError } from '../../gateway/store/types.js';
import { uniquePrefix } from '../helpers/redis.js';
import { startReplicatedRedis } from '../helpers/replicated-redis.js';
import { clientRecord, serviceAccountRecord } from './contract.js';

const redis = await startReplicatedRedis(t);
// The command timeout is below WAIT's, so that a WAIT cut by it would fail as an outage; both with
// room for a loaded machine, where a plain command once took over 100 ms.
const ACK_TIMEOUT_MS = 600;
const COMMAND_TIMEOUT_MS = 300;

async function openStore(t: Test, prefix: string, options: RedisStoreOptions = {}): Promise<RedisCredentialStore> {
  const store = new RedisCredentialStore(redis.url, prefix, {
    commandTimeoutMs: COMMAND_TIMEOUT_MS,
    replicaAck: { replicas: 1, timeoutMs: ACK_TIMEOUT_MS },
    ...options,
  });
  await store.connect();
  t.teardown(() => store.close());
  return store;
}

/** Runs the change while the replica is held behind; it must fail as not confirmed after about the WAIT timeout. */
async function notConfirmed(t: Test, change: () => Promise<unknown>, what: string): Promise<void> {
  redis.link.hold();
  try {
    const started = performance.now();
    const error = await change().then(
      () => undefined,
      (e: unknown) => e,
    );
    const elapsed = performance.now() - started;
    t.type(error, ChangeNotConfirmedError, `${what}: not confirmed`);
    t.notOk(error instanceof StoreUnavailableError, `${what}: an answer, not an outage (the circuit breaker does not count it)`);
    t.match(error, { subject: 'change', acknowledged: 0, required: 1 });
    // WAIT's own timeout, not the shorter command timeout, decided.
    t.ok(elapsed >= ACK_TIMEOUT_MS - 5 && elapsed < ACK_TIMEOUT_MS + COMMAND_TIMEOUT_MS + 400, `${what}: after the WAIT timeout (${elapsed.toFixed(0)} ms)`);
  } finally {
    redis.link.release();
  }
  await redis.inSync();
}

const exists = async (server: typeof redis.master, key: string) => Number(await server.command('EXISTS', key));

t.test(
  'a deletion is answered once the replica has it; held behind, not confirmed while only the master has it; a repeat from another connection too',
  async (t) => {
    const prefix = uniquePrefix('ack');
    const store = await openStore(t, prefix);
    const [kept, lagging] = [clientRecord(), clientRecord()];
    for (const c of [kept, lagging]) t.equal(await store.createClient(c), true);
    await redis.inSync();

    t.equal(await store.deleteClient(kept.clientId), true);
    t.equal(await exists(redis.replica, `${prefix}client:{${kept.clientId}}`), 0, 'answered: the replica has the deletion at that moment');

    const key = `${prefix}client:{${lagging.clientId}}`;
    redis.link.hold();
    try {
      const error = await store.deleteClient(lagging.clientId).catch((e: unknown) => e);
      t.type(error, ChangeNotConfirmedError, 'held behind: not confirmed');
      t.equal(await exists(redis.master, key), 0, 'the master applied it');
      t.equal(await exists(redis.replica, key), 1, 'the replica does not have it: a failover now would bring the client back');
      t.ok(redis.link.heldBytes() > 0, 'the deletion is held on the link');
      // Another gateway repeats the deletion on its own connection: nothing left to delete on the
      // master, so only the barrier makes its WAIT wait for the first attempt.
      const other = await openStore(t, prefix);
      t.type(
        await other.deleteClient(lagging.clientId).catch((e: unknown) => e),
        ChangeNotConfirmedError,
        'a repeat that finds nothing to delete is not confirmed either while the replica lags',
      );
    } finally {
      redis.link.release();
    }
    t.equal(await store.deleteClient(lagging.clientId), false, 'repeated once the replica caught up: confirmed (already gone)');
    t.equal(await exists(redis.replica, key), 0, 'and the replica has it');
  },
);

t.test(
  'every security-relevant change waits: revocation, key retirement, secret roll, key removal, permission and scope changes, account deletion',
  async (t) => {
    const prefix = uniquePrefix('ack-all');
    const store = await openStore(t, prefix);
    const client = clientRecord();
    const account = serviceAccountRecord();
    const second = { publicKey: 'ssh-ed25519 second', publicKeyBytes: 'c2Vjb25k', fingerprint: 'SHA256:second', addedAt: new Date().toISOString() };
    t.equal(await store.createClient(client), true);
    t.equal(await store.createServiceAccount(account), true);
    t.equal((await store.addServiceAccountKey(account.id, second)).outcome, 'added');
    await redis.inSync();
    const exp = Math.floor(Date.now() / 1000) + 600;

    await notConfirmed(t, () => store.revokeToken(client.clientId, 'jti-1', exp), 'revocation');
    await store.revokeToken(client.clientId, 'jti-1', exp);
    t.equal(await exists(redis.replica, `${prefix}client:{${client.clientId}}:revoked:jti-1`), 1, 'repeated: on the replica');

    await notConfirmed(t, () => store.retireSigningKey('kid-1', exp), 'signing key retirement');
    await store.retireSigningKey('kid-1', exp);
    t.equal(await exists(redis.replica, `${prefix}signing-key-retired:kid-1`), 1, 'repeated: on the replica');

    await notConfirmed(t, () => store.rollClientSecret(client.clientId, 'f'.repeat(64), 0), 'secret roll');
    t.equal((await store.rollClientSecret(client.clientId, 'e'.repeat(64), 0))?.secretHash, 'e'.repeat(64), 'repeated: a new roll, confirmed');

    await notConfirmed(t, () => store.removeServiceAccountKey(account.id, second.fingerprint), 'key removal');
    t.equal((await store.removeServiceAccountKey(account.id, second.fingerprint)).outcome, 'key_not_found', 'repeated: already removed, and confirmed');
    redis.link.hold();
    try {
      t.type(
        await store.removeServiceAccountKey(account.id, second.fingerprint).catch((e: unknown) => e),
        ChangeNotConfirmedError,
        'a repeat that finds its work done still waits for the replica',
      );
    } finally {
      redis.link.release();
    }
    await redis.inSync();

    // Narrowing what a credential may do: permissions, allowed addresses, scopes, a client's keys.
    await notConfirmed(t, () => store.updateServiceAccount(account.id, { permissions: ['view_balance'] }), 'permission change');
    t.same((await store.updateServiceAccount(account.id, { permissions: ['view_balance'], allowedIps: ['10.0.0.1/32'] }))?.permissions, ['view_balance']);
    t.same(JSON.parse(String(await redis.replica.command('GET', `${prefix}sa:{${account.accessId}}`))).allowedIps, ['10.0.0.1/32'], 'repeated: on the replica');
    await notConfirmed(t, () => store.updateClient(client.clientId, () => ({ scopes: ['sales'] })), 'scope change');
    await notConfirmed(t, () => store.updateClient(client.clientId, () => ({ jwks: [] })), "removal of a client's key");
    t.same((await store.updateClient(client.clientId, () => ({ scopes: ['sales'] })))?.scopes, ['sales']);
    t.same(JSON.parse(String(await redis.replica.command('GET', `${prefix}client:{${client.clientId}}`))).scopes, ['sales'], 'repeated: on the replica');

    await notConfirmed(t, () => store.deleteServiceAccount(account.id), 'service account deletion');
    t.equal(await exists(redis.replica, `${prefix}sa:{${account.accessId}}`), 0, 'the replica caught up: the record is gone there too');

    // Single-use values: a failover must not make a used DPoP proof, assertion or FAPI nonce fresh again.
    for (const use of ['client_assertion', 'dpop_proof', 'signature_nonce'] as const) {
      await notConfirmed(t, () => store.consumeTokenId(client.clientId, use, `once-${use}`, exp), `a used ${use}`);
      t.equal(await store.consumeTokenId(client.clientId, use, `once-${use}`, exp), false, `${use}: used, on the replica too once repeated`);
    }
  },
);

t.test('a repeated service account deletion, by id or by Access ID, is answered only once the replica has the first one', async (t) => {
  const prefix = uniquePrefix('ack-sa');
  const store = await openStore(t, prefix);
  // Ids as the admin API makes them: in the slot of the Access ID, so the id's key goes with the record.
  const inOneSlot = () => {
    const accessId = randomUUID();
    return serviceAccountRecord({ accessId, id: serviceAccountIdFor(accessId) });
  };
  const [byId, byAccessId] = [inOneSlot(), inOneSlot()];
  for (const account of [byId, byAccessId]) t.equal(await store.createServiceAccount(account), true);
  await redis.inSync();
  redis.link.hold();
  try {
    t.type(await store.deleteServiceAccount(byId.id).catch((e: unknown) => e), ChangeNotConfirmedError, 'by id: not confirmed');
    t.type(
      await store.deleteServiceAccount(byId.id).catch((e: unknown) => e),
      ChangeNotConfirmedError,
      'repeated while the replica lags: the account is gone from the master, and still not confirmed',
    );
    t.type(await store.deleteServiceAccountByAccessId(byAccessId.accessId).catch((e: unknown) => e), ChangeNotConfirmedError, 'by Access ID: not confirmed');
    t.type(await store.deleteServiceAccountByAccessId(byAccessId.accessId).catch((e: unknown) => e), ChangeNotConfirmedError, 'repeated: still not confirmed');
    t.equal(await exists(redis.replica, `${prefix}sa:{${byId.accessId}}`), 1, 'the replica still holds the account');
  } finally {
    redis.link.release();
  }
  t.equal(await store.deleteServiceAccount(byId.id), false, 'once the replica caught up: confirmed, already gone');
  t.equal(await store.deleteServiceAccountByAccessId(byAccessId.accessId), null);
  for (const account of [byId, byAccessId]) t.equal(await exists(redis.replica, `${prefix}sa:{${account.accessId}}`), 0, 'gone from the replica too');
});

t.test('with no replica required nothing waits: the write is answered while the replica lacks it (the unprotected behaviour)', async (t) => {
  const prefix = uniquePrefix('ack-none');
  const store = await openStore(t, prefix, { replicaAck: { replicas: 0, timeoutMs: ACK_TIMEOUT_MS } });
  const client = clientRecord();
  t.equal(await store.createClient(client), true);
  await redis.inSync();
  redis.link.hold();
  try {
    t.equal(await store.deleteClient(client.clientId), true, 'answered done');
    t.equal(await exists(redis.replica, `${prefix}client:{${client.clientId}}`), 1, 'although the replica still holds the client');
  } finally {
    redis.link.release();
  }
  await redis.inSync();
});

t.test('nonces with nonceFailover wait: a fresh nonce waits for the replica, a used one is refused as used', async (t) => {
  const prefix = uniquePrefix('ack-nonce');
  const store = await openStore(t, prefix, { nonceFailover: 'wait' });
  const account = serviceAccountRecord();
  t.equal(await store.createServiceAccount(account), true);
  t.equal(await store.consumeNonce(account.accessId, 'n-1', 60), 'fresh');
  t.equal(await exists(redis.replica, `${prefix}sa:{${account.accessId}}:nonce:n-1`), 1, 'answered: the replica holds the used nonce');
  redis.link.hold();
  try {
    const error = await store.consumeNonce(account.accessId, 'n-2', 60).catch((e: unknown) => e);
    t.type(error, ChangeNotConfirmedError, 'held behind: the nonce is not confirmed (the request is not forwarded)');
    t.match(error, { subject: 'nonce' });
    t.equal(await store.consumeNonce(account.accessId, 'n-1', 60), 'used', 'a replay is refused as a replay, whatever the replica holds');
  } finally {
    redis.link.release();
  }
  await redis.inSync();
  t.equal(await store.consumeNonce(account.accessId, 'n-3', 60), 'fresh');
  t.throws(
    () => new RedisCredentialStore(redis.url, prefix, { nonceFailover: 'wait' }),
    /at least one replica/,
    'wait without a replica to wait for is refused',
  );
});

t.test('the barrier key shares the slot of the written key whenever one can be named', async (t) => {
  t.equal(barrierKey('gw:sa:{abc}'), 'gw:sa:{abc}:replica-ack', 'a tagged key keeps its tag');
  t.equal(barrierKey('gw:signing-key-retired:k1'), '{gw:signing-key-retired:k1}:replica-ack', 'a tagless key becomes the tag');
  t.equal(barrierKey('gw:a{}b'), undefined, 'an empty tag: the whole key is hashed, and no other key of its slot can be named');
  t.equal(barrierKey('gw}:x'), undefined);
  t.equal(barrierKey('gw{:x'), undefined);
});
