// gatewayctl hash-password: what it prints is accepted by the settings and verifies the password.
import t from 'tap';
import { settingsFrom } from '../../gateway/config/settings.js';
import { hashPassword, parsePasswordHash, verifyPassword } from '../../gateway/dashboard/password-hash.js';
import { runCli, runCliProcess } from '../helpers/cli.js';

t.test('reads the password from stdin and prints a scrypt hash for GATEWAY_DASHBOARD_USERS', async (t) => {
  // A separate process: the password comes through a real stdin pipe, the hash out of its real stdout.
  const result = await runCliProcess(['hash-password'], {}, 'correct horse battery staple\n');
  t.equal(result.code, 0, result.stderr);
  const hash = result.stdout.trim();
  t.match(hash, /^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
  t.equal(result.stdout, `${hash}\n`, 'only the hash on stdout');
  t.ok(await verifyPassword('correct horse battery staple', hash), 'the line break a pipe adds is not part of the password');
  t.notOk(await verifyPassword('correct horse battery staple\n', hash));
  t.notOk(await verifyPassword('Correct horse battery staple', hash));
  const settings = settingsFrom({ dashboard_users: [`alice:${hash}`] });
  t.same(settings.dashboardUsers, [{ username: 'alice', passwordHash: hash }]);

  const again = await runCli(['hash-password'], {}, 'correct horse battery staple\n');
  t.not(again.stdout.trim(), hash, 'a fresh salt every time');
});

t.test('refuses a short password', async (t) => {
  const result = await runCli(['hash-password'], {}, 'short\n');
  t.equal(result.code, 2);
  t.equal(result.stdout, '');
  t.match(result.stderr, 'the password must be at least 12 characters');
});

t.test('hashes with costs out of bounds are never used', async (t) => {
  const good = await hashPassword('some password here', { N: 1024, r: 8, p: 1 });
  t.ok(await verifyPassword('some password here', good), 'other costs within bounds verify');
  const [, , , , salt, key] = good.split('$');
  for (const bad of [
    `scrypt$1000$8$1$${salt}$${key}`,
    `scrypt$${2 ** 24}$8$1$${salt}$${key}`,
    `scrypt$1024$0$1$${salt}$${key}`,
    `scrypt$1024$8$1$AA$${key}`,
    'bcrypt$2b$10$x',
  ]) {
    t.equal(parsePasswordHash(bad), undefined, bad.slice(0, 24));
    t.equal(await verifyPassword('some password here', bad), false);
  }
});
