// gatewayctl lists follow next_cursor page by page, and finds an account by its full Access ID
// without printing the ID back.
import t from 'tap';
import { runCli } from '../helpers/cli.js';
import { startTestGateway } from '../helpers/gateway.js';
import { listen } from '../helpers/http.js';
import { createClient } from '../helpers/oauth.js';
import { createServiceAccount } from '../helpers/signing.js';

t.test('list pages through everything; find looks up one Access ID', async (t) => {
  const tg = await startTestGateway(t);
  const env = { GATEWAY_ADMIN_URL: (await listen(tg)).adminUrl, GATEWAY_ADMIN_TOKEN: tg.adminToken };
  const accounts = await Promise.all(Array.from({ length: 5 }, (_, i) => createServiceAccount(tg, { description: `paged ${i}` })));
  const clients = await Promise.all(Array.from({ length: 3 }, () => createClient(tg, ['sales'])));

  const listed = await runCli(['service-accounts', 'list', '--page-size', '2', '--json'], env);
  t.equal(listed.code, 0, listed.stderr);
  t.same(
    (JSON.parse(listed.stdout) as Array<{ id: string }>).map((a) => a.id).sort(),
    accounts.map((a) => a.account.id).sort(),
    'all five, over three pages of two',
  );
  const table = await runCli(['clients', 'list', '--page-size', '1'], env);
  t.equal(table.code, 0, table.stderr);
  for (const client of clients) t.match(table.stdout, client.client_id);

  const found = await runCli(['service-accounts', 'find', accounts[3]!.account.access_id], env);
  t.equal(found.code, 0, found.stderr);
  t.match(found.stdout, /^description:\s+paged 3$/m);
  t.match(found.stdout, new RegExp(`^id:\\s+${accounts[3]!.account.id}$`, 'm'));
  t.notMatch(found.stdout, accounts[3]!.account.access_id, 'the Access ID is not printed back');

  const missing = await runCli(['service-accounts', 'find', '00000000-0000-4000-8000-000000000000'], env);
  t.equal(missing.code, 1);
  t.match(missing.stderr, /No service account has that Access ID/);
  const bad = await runCli(['service-accounts', 'list', '--page-size', '5000'], env);
  t.equal(bad.code, 1);
  t.match(bad.stderr, /--page-size must be a whole number from 1 to 1000/);
});
