// gatewayctl service-accounts update and clients update: change what a credential may do, keeping
// its Access ID or client id; a usage error without anything to change or with options that clash.
import t from 'tap';
import { startTestGateway } from '../helpers/gateway.js';
import { runCli } from '../helpers/cli.js';
import { listen } from '../helpers/http.js';
import { createClient } from '../helpers/oauth.js';
import { createServiceAccount } from '../helpers/signing.js';

t.test('update a service account and a client from the CLI', async (t) => {
  const tg = await startTestGateway(t, { store: 'embedded' });
  const env = { GATEWAY_ADMIN_URL: (await listen(tg)).adminUrl, GATEWAY_ADMIN_TOKEN: tg.adminToken };
  const sa = await createServiceAccount(tg, { permissions: ['view_balance'] });

  const updated = await runCli(
    [
      'service-accounts',
      'update',
      sa.account.id,
      '--permissions',
      'view_balance,view_transactions',
      '--allowed-ips',
      '10.0.0.0/8',
      '--expires-at',
      '2031-01-01T00:00:00Z',
    ],
    env,
  );
  t.equal(updated.code, 0, updated.stderr);
  t.match(updated.stdout, /^permissions:\s+view_balance view_transactions$/m);
  t.match(updated.stdout, /^allowed_ips:\s+10\.0\.0\.0\/8$/m);
  t.match(updated.stdout, /^expires_at:\s+2031-01-01T00:00:00\.000Z$/m);
  t.match(updated.stdout, new RegExp(`^fingerprint:\\s+${sa.account.fingerprint.replace(/[+/]/g, '\\$&')}$`, 'm'), 'the key stays');

  const cleared = await runCli(['service-accounts', 'update', sa.account.id, '--any-address', '--never-expires', '--json'], env);
  t.equal(cleared.code, 0, cleared.stderr);
  t.match(JSON.parse(cleared.stdout), { allowed_ips: ['0.0.0.0/0', '::/0'], expires_at: null });

  const nothing = await runCli(['service-accounts', 'update', sa.account.id], env);
  t.equal(nothing.code, 2);
  t.match(nothing.stderr, /nothing to change/);
  const clash = await runCli(['service-accounts', 'update', sa.account.id, '--expires-at', '2031-01-01T00:00:00Z', '--never-expires'], env);
  t.equal(clash.code, 2);
  t.match(clash.stderr, /--expires-at or --never-expires, not both/);
  const unknown = await runCli(['service-accounts', 'update', sa.account.id, '--permissions', 'fly'], env);
  t.equal(unknown.code, 1);
  t.match(unknown.stderr, /permissions/);

  const client = await createClient(tg, ['sales', 'products']);
  const renamed = await runCli(['clients', 'update', client.client_id, '--name', 'Storefront', '--scopes', 'sales'], env);
  t.equal(renamed.code, 0, renamed.stderr);
  t.match(renamed.stdout, /^name:\s+Storefront$/m);
  t.match(renamed.stdout, /^scopes:\s+sales$/m);
});
