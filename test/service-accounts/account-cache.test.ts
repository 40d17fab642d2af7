// The accounts an instance verified before save the signed route its read, never a check: the
// nonce is consumed only while the stored record is the version the instance verified with, and a
// request whose account changed in between is checked again from the store (or, if it keeps
// changing, refused 503 and not forwarded).
import { generateKeyPairSync } from 'node:crypto';
import t, { type Test } from 'tap';
import { AccountCache } from '../../gateway/pipeline/authenticate/signature/account-cache.js';
import { sshPublicKeyLine } from '../../gateway/signing/index.js';
import type { NonceConsumption, ServiceAccountRecord } from '../../gateway/store/types.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { recordingStore } from '../helpers/recording-store.js';
import { adminInject, createServiceAccount, signedInject } from '../helpers/signing.js';

t.test('AccountCache: bounded in count, the least recently used entry goes first', async (t) => {
  const cache = new AccountCache(2);
  const entry = (id: string, version = `v-${id}`) => ({ account: { id } as ServiceAccountRecord, version });
  cache.set('a', entry('a'));
  cache.set('b', entry('b'));
  cache.set('a', entry('a', 'v-a2'));
  cache.set('c', entry('c'));
  t.equal(cache.size, 2);
  t.equal(cache.get('b'), undefined, 'b is the oldest entry once a was replaced');
  t.equal(cache.get('a')?.version, 'v-a2', 'a replaced by its newer version');
  t.equal(cache.get('c')?.version, 'v-c');
  t.equal(cache.get('a')?.version, 'v-a2', 'a read: c is now the least recently used');
  cache.set('d', entry('d'));
  t.equal(cache.get('c'), undefined, 'c went, though a was added before it');
  t.equal(cache.get('a')?.version, 'v-a2');
  cache.delete('a');
  t.equal(cache.get('a'), undefined);
});

/** A gateway on the embedded store, whose consumeNonce answers account_changed `changes` times first; calls recorded by name. */
async function gatewayWithChanges(t: Test, changes: number): Promise<{ tg: TestGateway; calls: string[] }> {
  const calls: string[] = [];
  let changesLeft = changes;
  const changed = (name: string, args: unknown[]) => {
    if (name !== 'consumeNonce' || args[3] === undefined || changesLeft === 0) return undefined;
    changesLeft--;
    return Promise.resolve<NonceConsumption>('account_changed');
  };
  const tg = await startTestGateway(t, { store: 'embedded', wrapStore: (store) => recordingStore(store, calls, changed) });
  return { tg, calls };
}

const hotPath = (calls: string[]) => calls.filter((name) => name === 'serviceAccountForRequest' || name === 'consumeNonce');

t.test('an account changed between authenticate and admit: the request is checked again from the store', async (t) => {
  const { tg, calls } = await gatewayWithChanges(t, 1);
  const sa = await createServiceAccount(tg, { permissions: ['view_balance'] });
  calls.length = 0;
  const response = await signedInject(tg, sa, { method: 'GET', url: '/v1/balance' });
  t.equal(response.statusCode, 200, response.body);
  t.same(hotPath(calls), ['serviceAccountForRequest', 'consumeNonce', 'serviceAccountForRequest', 'consumeNonce'], 'refused to consume, read again, consumed');
  t.equal(tg.upstreams.banking.received.length, 1, 'forwarded once');
});

t.test('an account that keeps changing: 503 with Retry-After, nothing forwarded, the nonce not consumed', async (t) => {
  const { tg, calls } = await gatewayWithChanges(t, 2);
  const sa = await createServiceAccount(tg, { permissions: ['view_balance'] });
  const nonce = 'kept-changing-nonce';
  calls.length = 0;
  const refused = await signedInject(tg, sa, { method: 'GET', url: '/v1/balance', sign: { nonce } });
  t.equal(refused.statusCode, 503);
  t.equal(refused.json().error, 'server_busy');
  t.match(refused.json().message, /changed while this request was checked/);
  t.equal(refused.headers['retry-after'], '1');
  t.same(hotPath(calls), ['serviceAccountForRequest', 'consumeNonce', 'serviceAccountForRequest', 'consumeNonce'], 'checked twice, no more');
  t.equal(tg.upstreams.banking.received.length, 0, 'nothing forwarded');
  const again = await signedInject(tg, sa, { method: 'GET', url: '/v1/balance', sign: { nonce } });
  t.equal(again.statusCode, 200, 'the same request, sent again, passes: its nonce was not consumed');
});

t.test('two instances on one Redis: a key removed on one is refused at once by the other, which had verified with it', async (t) => {
  const first = await startTestGateway(t);
  const second = await startTestGateway(t, { redisPrefix: first.redisPrefix! });
  const sa = await createServiceAccount(first, { permissions: ['view_balance'] });
  t.equal((await signedInject(second, sa, { method: 'GET', url: '/v1/balance' })).statusCode, 200, 'the second instance verified the first key');

  const { privateKey: nextKey } = generateKeyPairSync('ed25519');
  const added = await adminInject(first, {
    method: 'POST',
    url: `/admin/v1/service-accounts/${sa.account.id}/keys`,
    payload: { public_key: sshPublicKeyLine(nextKey) },
  });
  t.equal(added.statusCode, 201, added.body);
  const next = { account: sa.account, privateKey: nextKey };
  t.equal(
    (await signedInject(second, next, { method: 'GET', url: '/v1/balance' })).statusCode,
    200,
    'a key added on the first instance verifies on the second',
  );
  t.equal((await signedInject(second, sa, { method: 'GET', url: '/v1/balance' })).statusCode, 200, 'both keys verify during the rotation');

  const removed = await adminInject(first, {
    method: 'DELETE',
    url: `/admin/v1/service-accounts/${sa.account.id}/keys/${encodeURIComponent(sa.account.fingerprint)}`,
  });
  t.equal(removed.statusCode, 200, removed.body);
  const forwarded = second.upstreams.banking.received.length;
  const refused = await signedInject(second, sa, { method: 'GET', url: '/v1/balance' });
  t.equal(refused.statusCode, 401, 'the removed key is refused on the instance that had verified with it');
  t.equal(refused.json().error, 'signature_invalid');
  t.equal(second.upstreams.banking.received.length, forwarded, 'nothing forwarded');
  t.equal((await signedInject(second, next, { method: 'GET', url: '/v1/balance' })).statusCode, 200, 'the remaining key still verifies');

  const deleted = await adminInject(first, { method: 'DELETE', url: `/admin/v1/service-accounts/${sa.account.id}` });
  t.equal(deleted.statusCode, 204);
  const gone = await signedInject(second, next, { method: 'GET', url: '/v1/balance' });
  t.equal(gone.statusCode, 401, 'a deleted account is refused at once');
  t.equal(gone.json().error, 'unknown_access_id');
});
