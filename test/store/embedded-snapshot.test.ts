// The embedded store keeps durable records in one snapshot file, replaced atomically (write a
// temporary file, rename it over the old one), and restores them on the next start.
import t, { type Test } from 'tap';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedCredentialStore } from '../../gateway/store/embedded-store.js';
import { clientRecord, serviceAccountRecord } from './contract.js';

function tempDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'gw-snapshot-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

t.test('durable records survive a restart; short-lived state does not', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'nested', 'store.json');
  const first = new EmbeddedCredentialStore(file);
  const kept = clientRecord();
  const deleted = clientRecord();
  const account = serviceAccountRecord();
  const exp = Math.floor(Date.now() / 1000) + 3600;
  await first.createClient(kept);
  await first.createClient(deleted);
  await first.deleteClient(deleted.clientId);
  await first.createServiceAccount(account);
  await first.recordServiceAccountUse([{ accessId: account.accessId, at: '2026-03-01T00:00:00.000Z', ip: '10.1.2.3', fingerprint: account.fingerprint }]);
  await first.compareAndSetMeta('jwt-signing-keys', null, '{"k":1}');
  await first.revokeToken(kept.clientId, 'jti-revoked', exp);
  await first.retireSigningKey('retired-kid', exp);
  await first.putSession('s', 'data', 600);
  await first.reserveAttempt([{ key: 'ip:1.1.1.1', max: 1 }], 600);
  t.equal(await first.consumeNonce(account.accessId, 'nonce', 300), 'fresh');
  await first.close();

  const second = new EmbeddedCredentialStore(file);
  t.teardown(() => second.close());
  t.same((await second.listClients({ limit: 10 })).items, [kept]);
  t.same(await second.getServiceAccount(account.id), {
    ...account,
    publicKeys: account.publicKeys.map((key) => ({ ...key, lastUsedAt: '2026-03-01T00:00:00.000Z' })),
    lastUsedAt: '2026-03-01T00:00:00.000Z',
    lastUsedIp: '10.1.2.3',
  });
  t.equal(await second.getMeta('jwt-signing-keys'), '{"k":1}');
  t.same(await second.bearerState(kept.clientId, 'jti-revoked', 'kid'), { client: kept, revoked: true, signingKeyRetired: false });
  t.same(await second.bearerState(kept.clientId, 'jti-other', 'kid'), { client: kept, revoked: false, signingKeyRetired: false });
  t.equal((await second.bearerState(kept.clientId, 'jti-other', 'retired-kid')).signingKeyRetired, true, 'a retired signing key stays retired');
  t.equal(await second.getSession('s'), null, 'sessions are not persisted');
  t.same(await second.reserveAttempt([{ key: 'ip:1.1.1.1', max: 1 }], 600), { allowed: true, retryAfterSeconds: 0 }, 'failure counts are not persisted');
});

t.test('the snapshot is replaced by rename, is private, and leaves no temporary file', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'store.json');
  const store = new EmbeddedCredentialStore(file);
  t.teardown(() => store.close());
  await store.createClient(clientRecord());
  const before = statSync(file);
  await store.createClient(clientRecord());
  const after = statSync(file);
  t.not(after.ino, before.ino, 'a new file (new inode) replaced the old one instead of rewriting it in place');
  t.equal(after.mode & 0o777, 0o600, 'only the owner can read the snapshot (it holds secret hashes and keys)');
  t.same(readdirSync(dir), ['store.json']);
  const snapshot = JSON.parse(readFileSync(file, 'utf8')) as { clients: Record<string, unknown> };
  t.equal(Object.keys(snapshot.clients).length, 2);
});

t.test('a leftover temporary file from a crash is ignored and the last complete snapshot restores', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'store.json');
  const first = new EmbeddedCredentialStore(file);
  const client = clientRecord();
  await first.createClient(client);
  await first.close();
  writeFileSync(join(dir, 'store.json.12345.tmp'), '{"clients": {"half-writ');
  const second = new EmbeddedCredentialStore(file);
  t.teardown(() => second.close());
  t.same((await second.listClients({ limit: 10 })).items, [client]);
});

t.test('without a path nothing is written', async (t) => {
  const dir = tempDir(t);
  const store = new EmbeddedCredentialStore();
  t.teardown(() => store.close());
  await store.createClient(clientRecord());
  t.same(readdirSync(dir), []);
});

t.test('a snapshot an older version wrote restores its records in the current shape, and is written so', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'store.json');
  const client = clientRecord({ resourceServer: false });
  const { resourceServer: _r, ...olderClient } = client;
  const account = serviceAccountRecord({ lastUsedAt: '2026-03-01T00:00:00.000Z', lastUsedIp: '10.1.2.3' });
  const { expiresAt: _e, publicKeys: _k, ...olderAccount } = account;
  const key = (kid: string, createdAt: string) => ({ kid, alg: 'EdDSA', privateJwk: { kty: 'OKP', d: kid }, publicJwk: { kty: 'OKP' }, createdAt });
  const [active, previous] = [key('active', '2026-02-01T00:00:00.000Z'), key('previous', '2026-01-01T00:00:00.000Z')];
  // As written before retired signing keys were kept in the snapshot: no retiredSigningKeys either.
  writeFileSync(
    file,
    JSON.stringify({
      clients: { [client.clientId]: olderClient },
      serviceAccounts: { [account.accessId]: olderAccount },
      meta: { 'jwt-signing-keys': JSON.stringify({ active, previous }), other: '{"k":1}' },
      revoked: {},
    }),
  );

  const store = new EmbeddedCredentialStore(file);
  t.teardown(() => store.close());
  t.same(await store.getClient(client.clientId), client, 'a client from before resourceServer is no resource server');
  t.same((await store.bearerState(client.clientId, 'jti', 'kid')).client, client);
  t.same(await store.getServiceAccount(account.id), account, 'an account from before expiry and key rotation: never expires, its one key listed');
  t.same((await store.serviceAccountForRequest(account.accessId, 'n')).account, account, 'the hot-path read too');
  t.same((await store.listServiceAccounts({ limit: 10 })).items, [account]);
  t.same(
    JSON.parse((await store.getMeta('jwt-signing-keys'))!),
    { active, retired: [{ ...previous, retiredAt: active.createdAt }], withdrawn: [] },
    'the first key set form: its previous key rotated out when the active one was made',
  );
  t.equal(await store.getMeta('other'), '{"k":1}', 'other shared values are left as they are');

  const second = { publicKey: 'ssh-ed25519 AAAA second', publicKeyBytes: 'B'.repeat(43), fingerprint: 'SHA256:second', addedAt: '2026-04-01T00:00:00.000Z' };
  t.equal((await store.addServiceAccountKey(account.id, second)).outcome, 'added', 'an upgraded account takes a second key');
  const written = JSON.parse(readFileSync(file, 'utf8')) as {
    clients: Record<string, unknown>;
    serviceAccounts: Record<string, unknown>;
    meta: Record<string, string>;
  };
  t.same(written.clients[client.clientId], client, 'the next snapshot holds every record in the current shape');
  const onlyKey = { publicKey: account.publicKey, publicKeyBytes: account.publicKeyBytes, fingerprint: account.fingerprint, addedAt: account.createdAt };
  t.same(written.serviceAccounts[account.accessId], { ...account, publicKeys: [onlyKey, second] });
  t.same(JSON.parse(written.meta['jwt-signing-keys']!), { active, retired: [{ ...previous, retiredAt: active.createdAt }], withdrawn: [] });
});
