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
  await first.recordServiceAccountUse([{ accessId: account.accessId, at: '2026-03-01T00:00:00.000Z', ip: '10.1.2.3' }]);
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
  t.same(await second.getServiceAccount(account.id), { ...account, lastUsedAt: '2026-03-01T00:00:00.000Z', lastUsedIp: '10.1.2.3' });
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
