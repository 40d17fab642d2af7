// Signing key rotation: new tokens use the new kid at once on every instance (the store announces
// the change), and a rotated-out key stays in the JWKS and verifies until every token it signed has
// expired, however many rotations follow. Unknown kids cannot block legitimate ones.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { decodeProtectedHeader, SignJWT } from 'jose';
import { SigningKeys } from '../../gateway/oauth/signing-keys.js';
import { EmbeddedCredentialStore } from '../../gateway/store/embedded-store.js';
import type { CredentialStore } from '../../gateway/store/types.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { accessToken, createClient, type CreatedClient } from '../helpers/oauth.js';
import { until } from '../helpers/poll.js';

const KEYS_META = 'jwt-signing-keys';

async function rotate(tg: TestGateway): Promise<{ active_kid: string; previous_kid: string }> {
  const response = await tg.gateway.adminApp.inject({
    method: 'POST',
    url: '/admin/v1/signing-keys/rotate',
    headers: { authorization: `Bearer ${tg.adminToken}` },
  });
  if (response.statusCode !== 200) throw new Error(`rotation failed: ${response.statusCode} ${response.body}`);
  return response.json<{ active_kid: string; previous_kid: string }>();
}

async function jwksKids(tg: TestGateway): Promise<string[]> {
  const response = await tg.gateway.publicApp.inject({ method: 'GET', url: '/.well-known/jwks.json' });
  return response.json<{ keys: Array<{ kid: string }> }>().keys.map((k) => k.kid);
}

const get = (tg: TestGateway, token: string) => tg.gateway.publicApp.inject({ method: 'GET', url: '/v1/sales', headers: { authorization: `Bearer ${token}` } });
const kidOf = (token: string) => decodeProtectedHeader(token).kid;

/** A token with the gateway's claims, signed with the gateway's active key but naming another kid. */
async function tokenWithKid(tg: TestGateway, client: CreatedClient, kid: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const claims = {
    iss: 'http://gateway.test',
    sub: client.client_id,
    aud: 'http://gateway.test',
    client_id: client.client_id,
    scope: 'sales',
    jti: randomUUID(),
    iat: now,
    exp: now + 60,
  };
  return new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', kid, typ: 'at+jwt' }).sign(tg.gateway.keys.signingKey().privateKey);
}

interface StoredSet {
  active: { kid: string };
  retired: Array<{ kid: string; retiredAt: string }>;
}

t.test('rotation keeps old tokens valid and signs new ones with the new key', async (t) => {
  const tg = await startTestGateway(t);
  const client = await createClient(tg, ['sales']);
  const before = await accessToken(tg, client);
  const firstKid = kidOf(before)!;
  t.same(await jwksKids(tg), [firstKid]);
  t.equal((await get(tg, before)).statusCode, 200);

  const unauthorized = await tg.gateway.adminApp.inject({ method: 'POST', url: '/admin/v1/signing-keys/rotate' });
  t.equal(unauthorized.statusCode, 401, 'rotation needs the admin token');

  const rotated = await rotate(tg);
  t.equal(rotated.previous_kid, firstKid);
  t.not(rotated.active_kid, firstKid);
  t.same(await jwksKids(tg), [rotated.active_kid, firstKid], 'JWKS serves the active and the retired key');
  t.equal((await get(tg, before)).statusCode, 200, 'a token signed before the rotation still verifies');
  const after = await accessToken(tg, client);
  t.equal(kidOf(after), rotated.active_kid, 'new tokens use the new kid');

  const again = await rotate(tg);
  t.same(await jwksKids(tg), [again.active_kid, rotated.active_kid, firstKid], 'a key rotated out twice is still published while its tokens live');
  t.equal((await get(tg, before)).statusCode, 200, 'a token signed with a key rotated out twice still verifies within its lifetime');
  t.equal((await get(tg, after)).statusCode, 200);
});

t.test('two rotations in a row on one instance: the other instance follows at once', async (t) => {
  const a = await startTestGateway(t);
  const b = await startTestGateway(t, { redisPrefix: a.redisPrefix });
  const client = await createClient(a, ['sales']);
  const early = await accessToken(b, client);
  t.equal((await get(a, early)).statusCode, 200, 'both instances share keys and clients');

  await rotate(a);
  const newest = await rotate(a);
  // Issuing and the JWKS never re-read the store on their own (an unknown kid would): only the
  // announcement can tell B, and it must do so well before the 30 s backstop.
  const waited = await until(async () => kidOf(await accessToken(b, client)) === newest.active_kid, 'B issues with the newest key');
  t.ok(waited < 1000, `B issues with A's newest key after ${waited} ms`);
  t.same(await jwksKids(b), [newest.active_kid, newest.previous_kid, kidOf(early)], 'B publishes the active key and both retired keys');
  const token = await accessToken(a, client);
  t.equal(kidOf(token), newest.active_kid);
  t.equal((await get(b, token)).statusCode, 200, "B verifies a token of A's newest key");
  t.equal((await get(b, early)).statusCode, 200, 'B still accepts a token of the key rotated out twice');

  // Concurrent first requests with a new kid on a third instance: none is refused.
  const c = await startTestGateway(t, { redisPrefix: a.redisPrefix });
  const rotatedAgain = await rotate(a);
  const latest = await accessToken(a, client);
  t.equal(kidOf(latest), rotatedAgain.active_kid);
  const statuses = (await Promise.all(Array.from({ length: 5 }, () => get(c, latest)))).map((r) => r.statusCode);
  t.same(statuses, [200, 200, 200, 200, 200]);
});

t.test('an unknown kid does not make an instance refuse the kid of a rotation that follows', async (t) => {
  const a = await startTestGateway(t);
  const b = await startTestGateway(t, { redisPrefix: a.redisPrefix });
  const client = await createClient(a, ['sales']);
  const forged = await get(b, await tokenWithKid(a, client, randomUUID()));
  t.equal(forged.statusCode, 401);
  t.equal(forged.headers['www-authenticate'], 'Bearer realm="gateway", error="invalid_token", error_description="unknown signing key"');

  await rotate(a);
  const fresh = await accessToken(a, client);
  const [forgedAgain, legitimate] = await Promise.all([get(b, await tokenWithKid(a, client, randomUUID())), get(b, fresh)]);
  t.equal(legitimate.statusCode, 200, 'a fresh token of A verifies on B at once');
  t.equal(forgedAgain.statusCode, 401, 'while a forged kid still fails');
});

t.test('a retired key leaves the JWKS, and stops verifying, only once its tokens have expired', async (t) => {
  const a = await startTestGateway(t, { config: { token_ttl_seconds: 60 } });
  const b = await startTestGateway(t, { redisPrefix: a.redisPrefix, config: { token_ttl_seconds: 60 } });
  const client = await createClient(a, ['sales']);
  const old = await accessToken(a, client);
  const oldKid = kidOf(old)!;
  await rotate(a);
  const newest = await rotate(a);
  t.equal((await get(b, old)).statusCode, 200, 'B verifies (and caches) a token of the key rotated out twice');

  // Retention: token lifetime (60 s) + 30 s backstop re-read + 30 s clock tolerance = 120 s after retirement.
  const store = a.gateway.store;
  const setRetiredAt = async (kid: string, secondsAgo: number) => {
    const raw = (await store.getMeta(KEYS_META))!;
    const set = JSON.parse(raw) as StoredSet;
    set.retired.find((k) => k.kid === kid)!.retiredAt = new Date(Date.now() - secondsAgo * 1000).toISOString();
    t.equal(await store.compareAndSetMeta(KEYS_META, raw, JSON.stringify(set)), true);
  };
  await setRetiredAt(oldKid, 110);
  await sleep(100);
  t.ok((await jwksKids(b)).includes(oldKid), 'retired 110 s ago: still published (its last tokens may live 10 s more)');
  t.equal((await get(b, old)).statusCode, 200);

  await setRetiredAt(oldKid, 121);
  await until(async () => !(await jwksKids(b)).includes(oldKid), "B drops the key once all of its tokens' lifetimes are over");
  t.equal((await jwksKids(b)).length, 2);
  const refused = await get(b, old);
  t.equal(refused.statusCode, 401, 'the verified-token cache does not keep a token of a dropped key alive');
  t.equal(refused.headers['www-authenticate'], 'Bearer realm="gateway", error="invalid_token", error_description="unknown signing key"');

  const third = await rotate(a);
  const stored = JSON.parse((await store.getMeta(KEYS_META))!) as StoredSet;
  t.equal(stored.active.kid, third.active_kid);
  t.same(
    stored.retired.map((k) => k.kid),
    [newest.active_kid, newest.previous_kid],
    'the rotation pruned the dropped key from the store',
  );
});

// The same rules on one SigningKeys object, with a clock the test moves.
const KEY_SETTINGS = { jwtSigningAlgorithm: 'EdDSA', jwtAllowedAlgorithms: ['EdDSA'], jwtSigningKeyFile: undefined, tokenTtlSeconds: 60 } as const;

t.test('retention with an injected clock: kept for lifetime + 60 s after retirement, pruned on load and on rotation', async (t) => {
  const store = new EmbeddedCredentialStore();
  let now = Date.parse('2026-03-01T00:00:00Z');
  const keys = await SigningKeys.open(store, KEY_SETTINGS, { now: () => now });
  t.teardown(async () => {
    keys.close();
    await store.close();
  });
  const first = keys.signingKey().kid;
  const { kid: second } = await keys.rotate();
  now += 30_000;
  const { kid: third } = await keys.rotate();
  t.same(
    keys.jwks().keys.map((k) => k.kid),
    [third, second, first],
  );

  now = Date.parse('2026-03-01T00:02:00Z') - 1;
  t.ok(keys.knows(first), 'the first key, retired at 00:00:00, is known until 00:02:00');
  now += 1;
  t.notOk(keys.knows(first), 'and dropped then, without any re-read');
  t.same(
    keys.jwks().keys.map((k) => k.kid),
    [third, second],
  );
  t.equal(await keys.verificationKey(first), undefined);

  const reopened = await SigningKeys.open(store, KEY_SETTINGS, { now: () => now });
  t.teardown(() => reopened.close());
  t.same(
    reopened.jwks().keys.map((k) => k.kid),
    [third, second],
    'a load skips the dropped key',
  );

  const { kid: fourth } = await keys.rotate();
  const stored = JSON.parse((await store.getMeta(KEYS_META))!) as StoredSet;
  t.same(
    stored.retired.map((k) => k.kid),
    [third, second],
    'the rotation removed it from the store',
  );
  await until(() => reopened.signingKey().kid === fourth, 'the other object follows the rotation');
  t.same(
    reopened.jwks().keys.map((k) => k.kid),
    [fourth, third, second],
  );
});

t.test('a key set stored in the earlier format (one previous key) keeps its previous key', async (t) => {
  // Written so by an older version into the embedded store's snapshot, which reads it upgraded (a
  // Redis store is upgraded by its layout migration: test/store/redis-migration.test.ts).
  const dir = mkdtempSync(join(tmpdir(), 'gw-key-set-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const snapshot = join(dir, 'store.json');
  const older = new EmbeddedCredentialStore(snapshot);
  let now = Date.parse('2026-03-01T00:00:00Z');
  const original = await SigningKeys.open(older, KEY_SETTINGS, { now: () => now });
  const previousKid = original.signingKey().kid;
  await original.rotate();
  original.close();
  const current = JSON.parse((await older.getMeta(KEYS_META))!) as { active: { createdAt: string }; retired: Array<Record<string, unknown>> };
  const { retiredAt: _retiredAt, ...previous } = current.retired[0]!;
  await older.compareAndSetMeta(KEYS_META, await older.getMeta(KEYS_META), JSON.stringify({ active: current.active, previous }));
  await older.close();

  const store = new EmbeddedCredentialStore(snapshot);
  t.same(
    JSON.parse((await store.getMeta(KEYS_META))!),
    { active: current.active, retired: [{ ...previous, retiredAt: current.active.createdAt }], withdrawn: [] },
    'restored in the current form',
  );
  const keys = await SigningKeys.open(store, KEY_SETTINGS, { now: () => now });
  t.teardown(async () => {
    keys.close();
    await store.close();
  });
  t.ok(keys.knows(previousKid), 'the previous key counts as retired when the active key was made');
  now += 120_000;
  t.notOk(keys.knows(previousKid));
});

t.test('forged kids cost the store a bounded number of reads: one at a time, a few per second', async (t) => {
  const inner = new EmbeddedCredentialStore();
  const reads = { total: 0, inFlight: 0, maxInFlight: 0 };
  const store = new Proxy(inner, {
    get(target, property, receiver) {
      if (property === 'getMeta') {
        return async (name: string) => {
          reads.total++;
          reads.maxInFlight = Math.max(reads.maxInFlight, ++reads.inFlight);
          try {
            await sleep(5);
            return await target.getMeta(name);
          } finally {
            reads.inFlight--;
          }
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as CredentialStore;
  const keys = await SigningKeys.open(store, KEY_SETTINGS);
  t.teardown(async () => {
    keys.close();
    await inner.close();
  });
  const before = reads.total;
  const misses: Promise<unknown>[] = [];
  const started = Date.now();
  while (Date.now() - started < 1000) {
    for (let i = 0; i < 20; i++) misses.push(keys.verificationKey(randomUUID()));
    await sleep(5);
  }
  const results = await Promise.all(misses);
  t.ok(
    results.every((r) => r === undefined),
    `${misses.length} forged kids, none found`,
  );
  const used = reads.total - before;
  t.ok(used >= 1 && used <= 7, `${used} store reads for ${misses.length} misses in one second`);
  t.equal(reads.maxInFlight, 1, 'never more than one read at a time');
});
