// gatewayctl as an API client and operator: keygen, service-accounts create|list|show|delete, and
// request signing through every banking route, with its own keys and with ssh-keygen's.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runCli, runCliProcess } from '../helpers/cli.js';
import { bankingRequests } from '../helpers/banking-routes.js';
import { startTestGateway } from '../helpers/gateway.js';
import { listen } from '../helpers/http.js';
import type { CreatedServiceAccount } from '../helpers/signing.js';

t.test('keygen, create, request through every route, list, show, delete', async (t) => {
  const tg = await startTestGateway(t);
  const { adminUrl, publicUrl: gatewayUrl } = await listen(tg);
  const env = { GATEWAY_ADMIN_URL: adminUrl, GATEWAY_ADMIN_TOKEN: tg.adminToken };
  const dir = mkdtempSync(join(tmpdir(), 'cli-'));

  const keygen = await runCli(['keygen', '--out', join(dir, 'key.pem'), '--comment', 'payroll@example']);
  t.equal(keygen.code, 0, keygen.stderr);
  t.match(keygen.stdout.trim(), /^ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI[A-Za-z0-9+/]{43} payroll@example$/);
  t.equal(statSync(join(dir, 'key.pem')).mode & 0o777, 0o600, 'the private key file is private');
  t.match(readFileSync(join(dir, 'key.pem'), 'utf8'), /^-----BEGIN PRIVATE KEY-----\n/);
  t.notMatch(keygen.stdout + keygen.stderr, /PRIVATE KEY-----\n[A-Za-z0-9]/, 'the private key is never printed');
  const again = await runCli(['keygen', '--out', join(dir, 'key.pem')]);
  t.equal(again.code, 1);
  t.match(again.stderr, /already exists; pass --force/);

  const created = await runCli(
    [
      'service-accounts',
      'create',
      '--description',
      'payroll <b>bot</b> \u202e',
      '--public-key-file',
      join(dir, 'key.pem.pub'),
      '--permissions',
      'view_balance,view_account_details,view_transactions,list_dict_keys,initiate_payment',
      '--account-id',
      'acct-9',
      '--json',
    ],
    env,
  );
  t.equal(created.code, 0, created.stderr);
  const account = JSON.parse(created.stdout) as CreatedServiceAccount;
  t.equal(account.public_key, keygen.stdout.trim());
  const signing = { GATEWAY_ACCESS_ID: account.access_id, GATEWAY_PRIVATE_KEY_FILE: join(dir, 'key.pem') };

  for (const request of bankingRequests(tg.gateway.policy.current)) {
    const args = [
      'request',
      '-X',
      request.method,
      `${gatewayUrl}${request.url}`,
      ...Object.entries(request.headers).flatMap(([n, v]) => ['-H', `${n}: ${v}`]),
      ...(request.body ? ['-d', request.body] : []),
    ];
    const result = await runCli(args, signing);
    t.equal(result.code, 0, `${request.method} ${request.url}: ${result.stdout} ${result.stderr}`);
    const echoed = JSON.parse(result.stdout);
    t.equal(echoed.url, request.url);
    t.equal(echoed.body, request.body ?? '');
    t.equal(echoed.headers['x-gateway-service-account-id'], account.id);
    t.equal(echoed.headers['x-gateway-account-id'], 'acct-9');
  }
  t.equal(tg.upstreams.banking.received.length, 7);

  const included = await runCli(['request', '-i', `${gatewayUrl}/v1/balance`, '--access-id', account.access_id, '--key', join(dir, 'key.pem')]);
  t.equal(included.code, 0, included.stderr);
  t.match(included.stdout, /^HTTP 200 OK\n(.+: .+\n)*content-type: application\/json\n/);

  const listed = await runCli(['service-accounts', 'list'], env);
  t.equal(listed.code, 0, listed.stderr);
  t.match(listed.stdout, /ID\s+ACCESS_ID\s+DESCRIPTION\s+PERMISSIONS\s+ALLOWED_IPS\s+LAST_USED/);
  t.match(
    listed.stdout,
    `${account.id}  ${account.access_id_hint}  payroll <b>bot</b> \\u202e  view_balance`,
    'descriptions are shown escaped: no control or bidi character reaches the terminal',
  );
  t.notMatch(listed.stdout, account.access_id, 'the list never shows the full Access ID');
  const shown = await runCli(['service-accounts', 'show', account.id], env);
  t.equal(shown.code, 0);
  t.match(shown.stdout, `fingerprint: ${account.fingerprint}`);
  t.notMatch(shown.stdout, account.access_id);

  const deleted = await runCli(['service-accounts', 'delete', account.id], env);
  t.equal(deleted.code, 0);
  t.equal(deleted.stdout.trim(), `Deleted service account ${account.id}.`);
  // A separate process: exit 1 through the real binary, the answer's body on its stdout, the status on its stderr.
  const refused = await runCliProcess(['request', `${gatewayUrl}/v1/balance`], signing);
  t.equal(refused.code, 1);
  t.equal(JSON.parse(refused.stdout).error, 'unknown_access_id');
  t.match(refused.stderr, /HTTP 401/);
  t.equal(tg.upstreams.banking.received.length, 8, 'the refused request never reached the upstream');
});

t.test('a key made by ssh-keygen -t ed25519 signs requests too', async (t) => {
  const tg = await startTestGateway(t);
  const { adminUrl, publicUrl: gatewayUrl } = await listen(tg);
  const dir = mkdtempSync(join(tmpdir(), 'cli-ssh-'));
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'me@laptop', '-f', join(dir, 'id_ed25519')]);
  const created = await runCli([
    'service-accounts',
    'create',
    '--description',
    'laptop',
    '--public-key',
    readFileSync(join(dir, 'id_ed25519.pub'), 'utf8').trim(),
    '--permissions',
    'initiate_payment',
    '--json',
    '--admin-url',
    adminUrl,
    '--admin-token',
    tg.adminToken,
  ]);
  t.equal(created.code, 0, created.stderr);
  const account = JSON.parse(created.stdout) as CreatedServiceAccount;
  t.equal(account.fingerprint, execFileSync('ssh-keygen', ['-lf', join(dir, 'id_ed25519.pub')], { encoding: 'utf8' }).split(' ')[1]);
  // A separate process: the body comes through a real stdin pipe, and the answer's bytes through its stdout.
  const sent = await runCliProcess(
    ['request', `${gatewayUrl}/v1/transfers`, '--data-file', '-', '--access-id', account.access_id, '--key', join(dir, 'id_ed25519')],
    {},
    '{"amount":"5.00"}',
  );
  t.equal(sent.code, 0, sent.stdout + sent.stderr);
  t.equal(JSON.parse(sent.stdout).body, '{"amount":"5.00"}');
  const denied = await runCli(['request', `${gatewayUrl}/v1/balance`, '--access-id', account.access_id, '--key', join(dir, 'id_ed25519')]);
  t.equal(denied.code, 1);
  t.equal(JSON.parse(denied.stdout).error, 'permission_denied');
});
