// The service-account admin API: create (Access ID shown once), list and show with
// the Access ID partly hidden, delete; every bad field a 400 naming it, nothing half-written.
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { sshPublicKeyLine } from '../../gateway/signing/index.js';
import { sshString } from '../../gateway/signing/ssh-wire.js';
import { startTestGateway } from '../helpers/gateway.js';
import { adminInject, type CreatedServiceAccount } from '../helpers/signing.js';

const key = () => sshPublicKeyLine(generateKeyPairSync('ed25519').privateKey, 'ops@example');
const blobLine = (...parts: Buffer[]) => `ssh-ed25519 ${Buffer.concat(parts).toString('base64')}`;

function sshKeygenFingerprint(line: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'sa-key-')), 'key.pub');
  writeFileSync(file, `${line}\n`);
  return execFileSync('ssh-keygen', ['-lf', file], { encoding: 'utf8' }).split(' ')[1]!;
}

t.test('create, list, show, delete', async (t) => {
  const tg = await startTestGateway(t);
  const publicKey = key();
  const created = await adminInject(tg, {
    method: 'POST',
    url: '/admin/v1/service-accounts',
    payload: {
      description: '  Payroll <script>alert(1)</script> & "co"  ',
      public_key: publicKey,
      permissions: ['view_balance', 'initiate_payment', 'view_balance'],
      account_id: 'acct-1',
    },
  });
  t.equal(created.statusCode, 201, created.body);
  t.equal(created.headers['cache-control'], 'no-store');
  const account = created.json<CreatedServiceAccount>();
  t.match(account.access_id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  t.match(account.id, /^sa_[0-9a-f]{20}$/);
  t.not(account.id, account.access_id);
  t.equal(account.access_id_hint, `${account.access_id.slice(0, 8)}-****-****-****-************`);
  t.equal(account.description, 'Payroll <script>alert(1)</script> & "co"', 'any text, trimmed, stored as given (escaped when shown)');
  t.equal(account.public_key, publicKey);
  t.equal(account.fingerprint, sshKeygenFingerprint(publicKey), 'the fingerprint ssh-keygen -lf prints');
  t.same(account.permissions, ['view_balance', 'initiate_payment']);
  t.same(account.allowed_ips, ['0.0.0.0/0', '::/0']);
  t.equal(account.account_id, 'acct-1');
  t.ok(Math.abs(Date.parse(account.created_at) - Date.now()) < 10_000);
  t.equal(account.last_used_at, null);
  t.equal(account.last_used_ip, null);

  const listed = await adminInject(tg, { method: 'GET', url: '/admin/v1/service-accounts' });
  t.equal(listed.statusCode, 200);
  t.notOk(listed.body.includes(account.access_id), 'the list never shows the full Access ID');
  const { access_id: _full, ...shown } = account;
  t.same(listed.json(), { service_accounts: [shown], next_cursor: null });

  const show = await adminInject(tg, { method: 'GET', url: `/admin/v1/service-accounts/${account.id}` });
  t.equal(show.statusCode, 200);
  t.same(show.json(), shown);

  t.notOk(tg.logs.text.includes(account.access_id), 'no log line carries the full Access ID');

  const deleted = await adminInject(tg, { method: 'DELETE', url: `/admin/v1/service-accounts/${account.id}` });
  t.equal(deleted.statusCode, 204);
  t.equal(deleted.body, '');
  for (const method of ['GET', 'DELETE'] as const) {
    const gone = await adminInject(tg, { method, url: `/admin/v1/service-accounts/${account.id}` });
    t.equal(gone.statusCode, 404);
    t.same({ ...gone.json(), request_id: 'x' }, { error: 'not_found', message: 'No service account with that id.', request_id: 'x' });
  }
  t.same((await adminInject(tg, { method: 'GET', url: '/admin/v1/service-accounts' })).json(), { service_accounts: [], next_cursor: null });
});

t.test('the admin token is required', async (t) => {
  const tg = await startTestGateway(t);
  for (const [method, url] of [
    ['GET', '/admin/v1/service-accounts'],
    ['POST', '/admin/v1/service-accounts'],
    ['DELETE', '/admin/v1/service-accounts/sa_1'],
  ] as const) {
    const response = await tg.gateway.adminApp.inject({ method, url, headers: { authorization: 'Bearer wrong' }, payload: {} });
    t.equal(response.statusCode, 401);
    t.equal(response.json().error, 'admin_unauthorized');
  }
});

t.test('bad input is a 400 naming the field, and nothing is written', async (t) => {
  const tg = await startTestGateway(t);
  const good = { description: 'ok', public_key: key(), permissions: ['view_balance'] };
  const raw = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x!;
  const keyBytes = Buffer.from(raw, 'base64url');
  const cases: [Record<string, unknown>, string, string | RegExp][] = [
    [{ ...good, description: undefined }, 'description', 'description: is required and must be non-empty text'],
    [{ ...good, description: '   ' }, 'description', 'description: is required and must be non-empty text'],
    [{ ...good, description: 'x'.repeat(201) }, 'description', 'description: must be at most 200 characters (got 201)'],
    [{ ...good, description: 'a\nb' }, 'description', 'description: must not contain control characters or line breaks'],
    [
      { ...good, public_key: undefined },
      'public_key',
      /^public_key: is required: an "ssh-ed25519 <base64> \[comment\]" line, a PEM "-----BEGIN PUBLIC KEY-----" block, or a JWK/,
    ],
    [
      { ...good, public_key: 'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7 me@host' },
      'public_key',
      'public_key: is a ssh-rsa key; only ssh-ed25519 keys are accepted ("ssh-ed25519 <base64> [comment]")',
    ],
    [{ ...good, public_key: 'ecdsa-sha2-nistp256 AAAAE2VjZHNh' }, 'public_key', /is a ecdsa-sha2-nistp256 key; only ssh-ed25519/],
    [{ ...good, public_key: '-----BEGIN PUBLIC KEY-----' }, 'public_key', 'public_key: has no "-----END PUBLIC KEY-----" line at its end'],
    [
      { ...good, public_key: 'AAAAC3NzaC1lZDI1NTE5AAAAICa0C4+T//PYlxEvfrxYKyMtvXJRfQgv6Dz7MN3OQ9G7' },
      'public_key',
      /^public_key: is not a public key in a form the gateway reads; give an "ssh-ed25519/,
    ],
    [{ ...good, public_key: 'ssh-ed25519' }, 'public_key', 'public_key: has no key data after "ssh-ed25519"'],
    [{ ...good, public_key: 'ssh-ed25519 not*base64' }, 'public_key', 'public_key: key data is not valid base64'],
    [
      { ...good, public_key: blobLine(sshString('ssh-ed25519'), sshString(keyBytes.subarray(0, 31))) },
      'public_key',
      'public_key: holds 31 key bytes; an Ed25519 key has exactly 32',
    ],
    [
      { ...good, public_key: blobLine(sshString('ssh-ed25519'), sshString(keyBytes), Buffer.from([0, 0])) },
      'public_key',
      'public_key: key data has 2 unexpected trailing bytes',
    ],
    [{ ...good, public_key: blobLine(sshString('ssh-ed25519'), Buffer.from([0, 0, 0, 32]), keyBytes.subarray(0, 10)) }, 'public_key', /key data is truncated/],
    [
      { ...good, public_key: blobLine(sshString('ssh-dss'), sshString(keyBytes)) },
      'public_key',
      'public_key: key data is for "ssh-dss", but the line says ssh-ed25519',
    ],
    [{ ...good, permissions: [] }, 'permissions', /permissions: must be a non-empty list drawn from: view_balance, /],
    [{ ...good, permissions: ['view_balance', 'fly'] }, 'permissions', /"fly" is not one of/],
    [{ ...good, allowed_ips: [] }, 'allowed_ips', /must be a non-empty list/],
    [{ ...good, allowed_ips: ['010.0.0.1'] }, 'allowed_ips', /"010.0.0.1" is not a valid IPv4 address/],
    [{ ...good, allowed_ips: ['0177.0.0.1'] }, 'allowed_ips', /is not a valid IPv4 address/],
    [{ ...good, allowed_ips: ['0x7f.0.0.1'] }, 'allowed_ips', /is not a valid IPv4 address/],
    [{ ...good, allowed_ips: ['127.1'] }, 'allowed_ips', /is not a valid IPv4 address/],
    [{ ...good, allowed_ips: ['10.0.0.0/33'] }, 'allowed_ips', /impossible prefix length \(0 to 32 for IPv4\)/],
    [{ ...good, allowed_ips: ['10.0.0.0/08'] }, 'allowed_ips', /impossible prefix length/],
    [{ ...good, allowed_ips: ['2001:db8::/129'] }, 'allowed_ips', /impossible prefix length \(0 to 128 for IPv6\)/],
    [{ ...good, allowed_ips: ['fe80::1%eth0'] }, 'allowed_ips', /is not a valid IPv6 address/],
    [{ ...good, allowed_ips: [42] }, 'allowed_ips', 'allowed_ips: 42 is not a string'],
    [{ ...good, extra: 1 }, 'extra', /is not a known field/],
  ];
  for (const [payload, field, message] of cases) {
    const response = await adminInject(tg, { method: 'POST', url: '/admin/v1/service-accounts', payload });
    t.equal(response.statusCode, 400, `${field}: ${response.body}`);
    const body = response.json();
    t.equal(body.error, 'validation_error');
    t.equal(body.field, field);
    if (typeof message === 'string') t.equal(body.message, message);
    else t.match(body.message, message);
  }
  t.same(
    (await adminInject(tg, { method: 'GET', url: '/admin/v1/service-accounts' })).json(),
    { service_accounts: [], next_cursor: null },
    'nothing was written',
  );
});

t.test('accepted forms are stored canonically', async (t) => {
  const tg = await startTestGateway(t);
  const description = '🏦'.repeat(200);
  const response = await adminInject(tg, {
    method: 'POST',
    url: '/admin/v1/service-accounts',
    payload: {
      description,
      public_key: key(),
      permissions: ['view_balance'],
      allowed_ips: ['10.1.0.0/16', '2001:DB8::1', '192.0.2.1', '192.0.2.1/32', '::ffff:10.0.0.0/104'],
    },
  });
  t.equal(response.statusCode, 201, response.body);
  const account = response.json<CreatedServiceAccount>();
  t.equal(account.description, description, '200 characters, counted as characters');
  t.same(account.allowed_ips, ['10.1.0.0/16', '2001:db8::1', '192.0.2.1', '192.0.2.1/32', '10.0.0.0/8']);
});
