// Records stored by versions before layout 3, served by a current gateway once its start migrated
// them (redis-layout-migration.ts): a client stored before resourceServer may not introspect, an
// account stored before key rotation and expiry signs with its one key and never expires, and the
// first form of the signing key set still verifies the tokens of its previous key.
import t from 'tap';
import { Redis } from 'ioredis';
import { decodeProtectedHeader } from 'jose';
import { RedisKeys } from '../../gateway/store/redis-keys.js';
import type { StoredKeySet } from '../../gateway/store/signing-key-set-record.js';
import type { ClientRecord, ServiceAccountRecord } from '../../gateway/store/types.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { accessToken, createClient, type CreatedClient } from '../helpers/oauth.js';
import { TEST_REDIS_URL } from '../helpers/redis.js';
import { adminInject, createServiceAccount, signedInject } from '../helpers/signing.js';
import { firstKeySetForm, KEY_SET_META, storeOlderShapes } from './older-records.js';

function introspect(tg: TestGateway, caller: CreatedClient, token: string) {
  return tg.gateway.publicApp.inject({
    method: 'POST',
    url: '/v1/oauth/introspect',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ client_id: caller.client_id, client_secret: caller.client_secret, token }).toString(),
  });
}

const bearer = (tg: TestGateway, token: string) =>
  tg.gateway.publicApp.inject({ method: 'GET', url: '/v1/sales', headers: { authorization: `Bearer ${token}` } });

t.test('records stored before layout 3 serve as they did once a start migrated them', async (t) => {
  // A gateway makes the records; they are then rewritten as an older version stored them.
  const first = await startTestGateway(t);
  const plain = await createClient(first, ['products']);
  const owner = await createClient(first, ['sales']);
  const sa = await createServiceAccount(first);
  const beforeRotation = await accessToken(first, owner);
  const rotated = await adminInject(first, { method: 'POST', url: '/admin/v1/signing-keys/rotate' });
  t.equal(rotated.statusCode, 200);
  const { active_kid: activeKid, previous_kid: previousKid } = rotated.json();
  await first.gateway.close();

  const prefix = first.redisPrefix!;
  const keys = new RedisKeys(prefix);
  const redis = new Redis(TEST_REDIS_URL);
  t.teardown(() => redis.disconnect());
  const read = async <T>(key: string) => JSON.parse((await redis.get(key))!) as T;
  const clients = [await read<ClientRecord>(keys.client(plain.client_id)), await read<ClientRecord>(keys.client(owner.client_id))];
  const account = await read<ServiceAccountRecord>(keys.account(sa.account.access_id));
  const keySet = await read<StoredKeySet>(keys.meta(KEY_SET_META));
  t.equal(keySet.retired[0]?.kid, previousKid);
  await storeOlderShapes(redis, prefix, { clients, accounts: [account], keySet: JSON.stringify(firstKeySetForm(keySet)) });
  t.notOk('resourceServer' in JSON.parse((await redis.get(keys.client(plain.client_id)))!), 'stored without resourceServer');

  const second = await startTestGateway(t, { redisPrefix: prefix });
  t.equal(await redis.get(keys.layoutVersion), '5', 'the start migrated the store before serving');

  // The client: no resource server, as before.
  const shownClient = await adminInject(second, { method: 'GET', url: `/admin/v1/clients/${plain.client_id}` });
  t.equal(shownClient.statusCode, 200);
  t.equal(shownClient.json().resource_server, false);
  const token = await accessToken(second, owner);
  const message = 'Only clients marked as resource servers may introspect tokens.';
  const refused = await introspect(second, plain, token);
  t.equal(refused.statusCode, 403, 'a client stored without the attribute may not introspect');
  t.same(refused.json(), { error: 'introspection_not_allowed', message, error_description: message, request_id: refused.json().request_id });
  t.equal(refused.headers['cache-control'], 'no-store');
  t.equal(refused.headers.pragma, 'no-cache');

  // The account: its one key, no expiry; it signs.
  const shownAccount = await adminInject(second, { method: 'GET', url: `/admin/v1/service-accounts/${sa.account.id}` });
  t.equal(shownAccount.statusCode, 200);
  t.equal(shownAccount.json().expires_at, null);
  t.same(shownAccount.json().public_keys, [
    { public_key: account.publicKey, fingerprint: account.fingerprint, added_at: account.createdAt, last_used_at: null },
  ]);
  const signed = await signedInject(second, sa, { method: 'GET', url: '/v1/balance' });
  t.equal(signed.statusCode, 200, 'an account stored without publicKeys still signs');
  t.equal(second.upstreams.banking.received.length, 1);

  // The key set: the previous key verifies its tokens until they have expired.
  t.equal(decodeProtectedHeader(beforeRotation).kid, previousKid);
  t.equal((await bearer(second, beforeRotation)).statusCode, 200, 'a token of the previous key verifies');
  const jwks = await second.gateway.publicApp.inject({ method: 'GET', url: '/.well-known/jwks.json' });
  t.same(
    jwks.json<{ keys: { kid: string }[] }>().keys.map((k) => k.kid),
    [activeKid, previousKid],
  );
  const listed = (await adminInject(second, { method: 'GET', url: '/admin/v1/signing-keys' })).json<{
    keys: { kid: string; state: string; verifies_until: string | null }[];
  }>();
  t.same(
    listed.keys.map((k) => [k.kid, k.state]),
    [
      [activeKid, 'active'],
      [previousKid, 'rotated_out'],
    ],
  );
  const activeCreatedAt = Date.parse(keySet.active.createdAt);
  t.ok(Date.parse(listed.keys[1]!.verifies_until!) > activeCreatedAt, 'rotated out when the active key was made, verifying for a token lifetime after');
});
