// Emergency retirement of a rotated-out JWT signing key (POST /admin/v1/signing-keys/{kid}/retire):
// its tokens get 401 at once, also from the verified-token cache and on an instance that never
// heard of the change, while the active key and other rotated-out keys keep verifying; it leaves
// the JWKS and loses its key material in the store. The active key is refused (409), unknown kids
// 404, malformed ones 400, a repeat answers 200 and changes nothing.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeProtectedHeader, exportJWK, generateKeyPair } from 'jose';
import t from 'tap';
import { SigningKeys } from '../../gateway/oauth/signing-keys.js';
import { EmbeddedCredentialStore } from '../../gateway/store/embedded-store.js';
import type { CredentialStore } from '../../gateway/store/types.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { accessToken, createClient, tokenRequest } from '../helpers/oauth.js';
import { until } from '../helpers/poll.js';

const KEYS_META = 'jwt-signing-keys';
const RETIRED = 'Bearer realm="gateway", error="invalid_token", error_description="the signing key was retired"';

interface KeyView {
  kid: string;
  alg: string;
  state: string;
  created_at: string | null;
  verifies_until: string | null;
  retired_at: string | null;
}

const admin = (tg: TestGateway, method: 'GET' | 'POST', url: string) =>
  tg.gateway.adminApp.inject({ method, url, headers: { authorization: `Bearer ${tg.adminToken}` } });
const retire = (tg: TestGateway, kid: string) => admin(tg, 'POST', `/admin/v1/signing-keys/${kid}/retire`);
const get = (tg: TestGateway, token: string) => tg.gateway.publicApp.inject({ method: 'GET', url: '/v1/sales', headers: { authorization: `Bearer ${token}` } });
const kidOf = (token: string) => decodeProtectedHeader(token).kid!;

async function rotate(tg: TestGateway): Promise<{ active_kid: string; previous_kid: string }> {
  const response = await admin(tg, 'POST', '/admin/v1/signing-keys/rotate');
  if (response.statusCode !== 200) throw new Error(`rotation failed: ${response.statusCode} ${response.body}`);
  return response.json();
}

async function listed(tg: TestGateway): Promise<KeyView[]> {
  const response = await admin(tg, 'GET', '/admin/v1/signing-keys');
  if (response.statusCode !== 200) throw new Error(`list failed: ${response.statusCode} ${response.body}`);
  return response.json<{ keys: KeyView[] }>().keys;
}

async function jwksKids(tg: TestGateway): Promise<string[]> {
  return (await tg.gateway.publicApp.inject({ url: '/.well-known/jwks.json' })).json<{ keys: Array<{ kid: string }> }>().keys.map((k) => k.kid);
}

/** The private part (d) of each stored key, by kid. */
async function storedPrivateParts(store: CredentialStore): Promise<Map<string, string>> {
  const set = JSON.parse((await store.getMeta(KEYS_META))!) as {
    active: { kid: string; privateJwk: { d: string } };
    retired: Array<{ kid: string; privateJwk: { d: string } }>;
  };
  return new Map([set.active, ...set.retired].map((k) => [k.kid, k.privateJwk.d]));
}

for (const store of ['redis', 'embedded'] as const) {
  t.test(`${store} store: a retired key's tokens fail at once, the active key's do not, and it leaves the JWKS`, async (t) => {
    const tg = await startTestGateway(t, { store });
    const client = await createClient(tg, ['sales']);
    const stolen = await accessToken(tg, client);
    const stolenKid = kidOf(stolen);
    t.equal((await get(tg, stolen)).statusCode, 200, 'verified (and now cached) before the retirement');
    const first = await rotate(tg);
    const kept = await accessToken(tg, client);
    const second = await rotate(tg);
    const current = await accessToken(tg, client);
    t.equal(kidOf(current), second.active_kid);
    const privateParts = await storedPrivateParts(tg.gateway.store);

    const listedBefore = await listed(tg);
    t.same(
      listedBefore.map((k) => [k.kid, k.state]),
      [
        [second.active_kid, 'active'],
        [first.active_kid, 'rotated_out'],
        [stolenKid, 'rotated_out'],
      ],
    );
    t.equal(listedBefore[0]!.verifies_until, null, 'the active key verifies as long as it is active');
    t.ok(Date.parse(listedBefore[2]!.verifies_until!) > Date.now(), 'a rotated-out key verifies until a time to come');

    const retired = await retire(tg, stolenKid);
    t.equal(retired.statusCode, 200, retired.body);
    const body = retired.json<KeyView & { already_retired: boolean }>();
    t.match(body, { kid: stolenKid, alg: 'EdDSA', state: 'retired', verifies_until: null, already_retired: false });
    t.ok(Math.abs(Date.parse(body.retired_at!) - Date.now()) < 5000, 'retired_at is now');
    t.equal(body.created_at, listedBefore[2]!.created_at);

    const refused = await get(tg, stolen);
    t.equal(refused.statusCode, 401, 'the retired key is refused at once, though its token was in the verified-token cache');
    t.equal(refused.headers['www-authenticate'], RETIRED);
    t.equal(refused.json<{ error: string }>().error, 'invalid_token');
    t.equal((await get(tg, current)).statusCode, 200, 'a token of the active key still passes');
    t.equal((await get(tg, kept)).statusCode, 200, 'a token of another rotated-out key still passes');
    t.same(await jwksKids(tg), [second.active_kid, first.active_kid], 'the JWKS no longer lists the retired key');
    t.same(
      (await listed(tg)).map((k) => [k.kid, k.state]),
      [
        [second.active_kid, 'active'],
        [first.active_kid, 'rotated_out'],
        [stolenKid, 'retired'],
      ],
    );

    const stored = await tg.gateway.store.getMeta(KEYS_META);
    t.notOk(stored!.includes(privateParts.get(stolenKid)!), 'the store no longer holds the private key');
    const audit = tg.logs.lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.audit === 'credential.retired');
    t.match(audit, [{ kind: 'signing_key', kid: stolenKid, by: 'admin-token' }], 'audited once');
    for (const d of privateParts.values()) t.notOk(tg.logs.text.includes(d), 'no log line carries key material');

    const again = await retire(tg, stolenKid);
    t.equal(again.statusCode, 200, 'retiring twice answers 200');
    t.same(again.json(), { ...body, already_retired: true }, 'with the first retirement, unchanged');
    t.equal(tg.logs.lines.filter((line) => line.includes('"credential.retired"')).length, 1, 'a repeat changes nothing and is not audited again');
    t.equal((await get(tg, stolen)).statusCode, 401);
  });
}

t.test('the active key is refused with 409, an unknown kid gets 404, a malformed one 400, no admin token 401', async (t) => {
  const tg = await startTestGateway(t);
  const active = (await listed(tg))[0]!.kid;

  const current = await retire(tg, active);
  t.equal(current.statusCode, 409);
  t.match(current.json(), {
    error: 'signing_key_active',
    message: `${active} is the active signing key: rotate first (POST /admin/v1/signing-keys/rotate, gatewayctl keys rotate), then retire it.`,
  });
  const token = await accessToken(tg, await createClient(tg, ['sales']));
  t.equal((await get(tg, token)).statusCode, 200, 'the active key still signs and verifies');

  const unknown = await retire(tg, randomUUID());
  t.equal(unknown.statusCode, 404);
  t.match(unknown.json(), { error: 'not_found', message: /^No signing key with that kid/ });

  for (const bad of ['not-a-kid', randomUUID().toUpperCase(), `${randomUUID()}x`]) {
    const malformed = await retire(tg, encodeURIComponent(bad));
    t.equal(malformed.statusCode, 400, bad);
    t.match(malformed.json(), {
      error: 'validation_error',
      field: 'kid',
      message: 'kid: must be the kid of a signing key: a lower-case UUID, as GET /admin/v1/signing-keys lists it',
    });
  }

  const anonymous = await tg.gateway.adminApp.inject({ method: 'POST', url: `/admin/v1/signing-keys/${active}/retire` });
  t.equal(anonymous.statusCode, 401);
  t.equal(anonymous.json<{ error: string }>().error, 'admin_unauthorized');
  const anonymousList = await tg.gateway.adminApp.inject({ method: 'GET', url: '/admin/v1/signing-keys' });
  t.equal(anonymousList.statusCode, 401);
  t.same(await jwksKids(tg), [active], 'nothing changed');
});

t.test('an instance that never hears of the retirement still refuses the key at once (the store is asked with each token)', async (t) => {
  const a = await startTestGateway(t);
  // B's announcements are lost: it keeps the key in its own set and JWKS until its backstop re-read.
  const b = await startTestGateway(t, {
    redisPrefix: a.redisPrefix,
    wrapStore: (store) =>
      new Proxy(store, {
        get(target, property, receiver) {
          if (property === 'watchMeta') return () => () => {};
          const value: unknown = Reflect.get(target, property, receiver);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      }),
  });
  const client = await createClient(a, ['sales']);
  const stolen = await accessToken(a, client);
  const stolenKid = kidOf(stolen);
  await b.gateway.keys.refresh();
  const rotated = await rotate(a);
  await b.gateway.keys.refresh();
  const current = await accessToken(a, client);
  t.equal((await get(b, stolen)).statusCode, 200, 'B verifies (and caches) the token before the retirement');
  t.equal((await get(b, current)).statusCode, 200);

  t.equal((await retire(a, stolenKid)).statusCode, 200);
  t.ok(b.gateway.keys.knows(stolenKid), 'B still holds the key');
  const refused = await get(b, stolen);
  t.equal(refused.statusCode, 401, 'B refuses the token at once');
  t.equal(refused.headers['www-authenticate'], RETIRED);
  t.equal((await get(b, current)).statusCode, 200, "B still accepts the active key's tokens");

  const introspection = await createClient(a, ['sales'], { resource_server: true });
  const introspect = await b.gateway.publicApp.inject({
    method: 'POST',
    url: '/v1/oauth/introspect',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ client_id: introspection.client_id, client_secret: introspection.client_secret, token: stolen }).toString(),
  });
  t.same(introspect.json(), { active: false }, 'introspection on B says inactive');

  await b.gateway.keys.refresh();
  t.notOk(b.gateway.keys.knows(stolenKid), 'once B re-reads the set, it drops the key');
  t.same(await jwksKids(b), [rotated.active_kid]);
  t.equal((await tokenRequest(b, { client_id: client.client_id, client_secret: client.client_secret })).statusCode, 200, 'B still issues tokens');
});

t.test(
  "a retirement mark the store cannot read (its Cluster master lost): the active key's tokens pass, a rotated-out key's fail closed with 503",
  async (t) => {
    let markLost = false;
    const tg = await startTestGateway(t, {
      wrapStore: (store) =>
        new Proxy(store, {
          get(target, property, receiver) {
            if (property === 'bearerState') {
              return async (...args: Parameters<CredentialStore['bearerState']>) => {
                const state = await target.bearerState(...args);
                return markLost ? { ...state, signingKeyRetired: null } : state;
              };
            }
            const value: unknown = Reflect.get(target, property, receiver);
            return typeof value === 'function' ? value.bind(target) : value;
          },
        }),
    });
    const client = await createClient(tg, ['sales']);
    const older = await accessToken(tg, client);
    await rotate(tg);
    const current = await accessToken(tg, client);
    const introspection = await createClient(tg, ['sales'], { resource_server: true });
    const introspect = (token: string) =>
      tg.gateway.publicApp.inject({
        method: 'POST',
        url: '/v1/oauth/introspect',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ client_id: introspection.client_id, client_secret: introspection.client_secret, token }).toString(),
      });

    markLost = true;
    t.equal((await get(tg, current)).statusCode, 200, 'the active key cannot have been retired: served');
    t.match((await introspect(current)).json(), { active: true }, 'and introspected as active');
    const refused = await get(tg, older);
    t.equal(refused.statusCode, 503, 'a rotated-out key might have been: fail closed');
    t.equal(refused.json<{ error: string }>().error, 'store_unavailable');
    t.equal((await introspect(older)).statusCode, 503, 'introspection fails closed too');
    markLost = false;
    t.equal((await get(tg, older)).statusCode, 200, 'once the mark is read again, the rotated-out key verifies');
  },
);

t.test('keys from GATEWAY_JWT_SIGNING_KEY_FILE: listed, and retiring is refused with 400 (change the file)', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-keys-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const [active, previous] = [randomUUID(), randomUUID()];
  const jwk = async (kid: string) => ({
    ...(await exportJWK((await generateKeyPair('EdDSA', { extractable: true, crv: 'Ed25519' })).privateKey)),
    kid,
    alg: 'EdDSA',
  });
  const file = join(dir, 'jwks.json');
  writeFileSync(file, JSON.stringify({ keys: [await jwk(active), await jwk(previous)] }));
  const tg = await startTestGateway(t, { config: { jwt_signing_key_file: file } });
  t.same(await listed(tg), [
    { kid: active, alg: 'EdDSA', state: 'active', created_at: null, verifies_until: null, retired_at: null },
    { kid: previous, alg: 'EdDSA', state: 'rotated_out', created_at: null, verifies_until: null, retired_at: null },
  ]);
  const refused = await retire(tg, previous);
  t.equal(refused.statusCode, 400);
  t.match(refused.json(), {
    error: 'validation_error',
    message: 'Signing keys come from GATEWAY_JWT_SIGNING_KEY_FILE: retire a key by removing it from that file on every instance.',
  });
  t.same(await jwksKids(tg), [active, previous]);
});

// The same rules on SigningKeys objects over one store, with a clock the test moves.
const KEY_SETTINGS = { jwtSigningAlgorithm: 'EdDSA', jwtAllowedAlgorithms: ['EdDSA'], jwtSigningKeyFile: undefined, tokenTtlSeconds: 60 } as const;

t.test('a retired key is listed until its tokens would have expired, survives rotations, and follows on other objects', async (t) => {
  const store = new EmbeddedCredentialStore();
  let now = Date.now();
  const keys = await SigningKeys.open(store, KEY_SETTINGS, { now: () => now });
  const other = await SigningKeys.open(store, KEY_SETTINGS, { now: () => now });
  t.teardown(async () => {
    keys.close();
    other.close();
    await store.close();
  });
  const first = keys.signingKey().kid;
  const { kid: second } = await keys.rotate();
  const { key, alreadyRetired } = await keys.retire(first);
  t.equal(alreadyRetired, false);
  t.equal(key.state, 'retired');
  await until(() => !other.knows(first), 'another object on the store drops it (the store announced the change)');
  t.ok(other.wasRetired(first), 'and knows it was retired');
  t.equal(await other.verificationKey(first), undefined);
  t.same(
    other.jwks().keys.map((k) => k.kid),
    [second],
  );

  now += 10_000;
  const { kid: third } = await keys.rotate();
  t.same(
    (await keys.list()).map((k) => [k.kid, k.state]),
    [
      [third, 'active'],
      [second, 'rotated_out'],
      [first, 'retired'],
    ],
    'a rotation keeps the retired key listed',
  );
  t.equal((await keys.retire(first)).alreadyRetired, true);

  // Rotated out at t0: its tokens are over at t0 + 60 s + 60 s; then it leaves the list, and the kid is unknown.
  now += 110_000;
  t.same(
    (await keys.list()).map((k) => k.kid),
    [third, second],
  );
  await t.rejects(keys.retire(first), { code: 'not_found' }, 'a key past its tokens is unknown');
  await t.rejects(keys.retire(third), { code: 'signing_key_active' });
});
