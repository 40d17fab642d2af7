// gatewayctl service-accounts create --expires-at, and keys add / keys remove (key rotation), run
// against a test gateway's admin listener.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { sshPublicKeyLine } from '../../gateway/signing/index.js';
import { runCli } from '../helpers/cli.js';
import { startTestGateway } from '../helpers/gateway.js';
import { listen } from '../helpers/http.js';
import { adminInject, signedInject, type CreatedServiceAccount } from '../helpers/signing.js';

type Account = CreatedServiceAccount & { public_keys: { public_key: string; fingerprint: string; added_at: string }[]; expires_at: string | null };

t.test('gatewayctl: create --expires-at, keys add, keys remove', async (t) => {
  const tg = await startTestGateway(t, { store: 'embedded' });
  const env = { GATEWAY_ADMIN_URL: (await listen(tg)).adminUrl, GATEWAY_ADMIN_TOKEN: tg.adminToken };
  const dir = mkdtempSync(join(tmpdir(), 'cli-sa-keys-'));
  const oldKey = generateKeyPairSync('ed25519').privateKey;
  const newKey = generateKeyPairSync('ed25519').privateKey;
  writeFileSync(join(dir, 'old.pub'), `${sshPublicKeyLine(oldKey, 'old')}\n`);
  writeFileSync(join(dir, 'new.pub'), `${sshPublicKeyLine(newKey, 'new')}\n`);
  writeFileSync(join(dir, 'new.pem'), newKey.export({ type: 'pkcs8', format: 'pem' }));

  const badExpiry = await runCli(
    [
      'service-accounts',
      'create',
      '--description',
      'x',
      '--public-key-file',
      join(dir, 'old.pub'),
      '--permissions',
      'view_balance',
      '--expires-at',
      '2020-01-01T00:00:00Z',
    ],
    env,
  );
  t.equal(badExpiry.code, 1);
  t.match(badExpiry.stderr, /400 validation_error: expires_at: must be in the future/);

  const expiresAt = '2099-06-30T12:00:00Z';
  const created = await runCli(
    [
      'service-accounts',
      'create',
      '--description',
      'rotating',
      '--public-key-file',
      join(dir, 'old.pub'),
      '--permissions',
      'view_balance',
      '--expires-at',
      expiresAt,
      '--json',
    ],
    env,
  );
  t.equal(created.code, 0, created.stderr);
  const account = JSON.parse(created.stdout) as Account;
  t.equal(account.expires_at, '2099-06-30T12:00:00.000Z');
  const shown = await runCli(['service-accounts', 'show', account.id], env);
  t.match(shown.stdout, /^expires_at:\s+2099-06-30T12:00:00\.000Z$/m);

  const privateRefused = await runCli(['service-accounts', 'keys', 'add', account.id, '--public-key-file', join(dir, 'new.pem')], env);
  t.equal(privateRefused.code, 2);
  t.match(privateRefused.stderr, /new\.pem is a private key; nothing was sent/);
  t.equal(
    (await adminInject(tg, { method: 'GET', url: `/admin/v1/service-accounts/${account.id}` })).json<Account>().public_keys.length,
    1,
    'nothing was sent',
  );

  const added = await runCli(['service-accounts', 'keys', 'add', account.id, '--public-key-file', join(dir, 'new.pub')], env);
  t.equal(added.code, 0, added.stderr);
  t.match(added.stdout, /^key 2:\s+SHA256:\S+ \(added /m);
  t.match(added.stdout, /Both keys now verify/);
  const both = (await adminInject(tg, { method: 'GET', url: `/admin/v1/service-accounts/${account.id}` })).json<Account>();
  t.equal(both.public_keys.length, 2);
  const signer = (privateKey: typeof oldKey) => ({ account, privateKey });
  t.equal((await signedInject(tg, signer(oldKey), { method: 'GET', url: '/v1/balance' })).statusCode, 200);
  t.equal((await signedInject(tg, signer(newKey), { method: 'GET', url: '/v1/balance' })).statusCode, 200);

  const full = await runCli(['service-accounts', 'keys', 'add', account.id, '--public-key', sshPublicKeyLine(generateKeyPairSync('ed25519').privateKey)], env);
  t.equal(full.code, 1);
  t.match(full.stderr, /409 service_account_key_limit/);

  const badFingerprint = await runCli(['service-accounts', 'keys', 'remove', account.id, 'md5:00'], env);
  t.equal(badFingerprint.code, 2);
  const removed = await runCli(['service-accounts', 'keys', 'remove', account.id, account.fingerprint, '--json'], env);
  t.equal(removed.code, 0, removed.stderr);
  const after = JSON.parse(removed.stdout) as Account;
  t.same(
    after.public_keys.map((k) => k.fingerprint),
    [both.public_keys[1]!.fingerprint],
  );
  t.equal((await signedInject(tg, signer(oldKey), { method: 'GET', url: '/v1/balance' })).json().error, 'signature_invalid', 'the removed key is refused');
  t.equal((await signedInject(tg, signer(newKey), { method: 'GET', url: '/v1/balance' })).statusCode, 200);

  const last = await runCli(['service-accounts', 'keys', 'remove', account.id, after.fingerprint], env);
  t.equal(last.code, 1);
  t.match(last.stderr, /409 service_account_last_key/);

  const help = await runCli(['service-accounts', 'keys', '--help']);
  t.equal(help.code, 0, help.stderr);
  t.match(help.stdout, /^Usage: gatewayctl service-accounts keys/m);
  t.match(help.stdout, /^\s+add \[options\] <ID>/m);
  t.match(help.stdout, /^\s+remove \[options\] <ID> <FINGERPRINT>/m);
  const bare = await runCli(['service-accounts', 'keys'], env);
  t.equal(bare.code, 2);
  t.match(bare.stderr, /service-accounts keys needs one of its commands: add, remove/);
});
