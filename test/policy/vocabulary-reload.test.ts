// The vocabulary is the policy's: a reload that removes a scope or permission credentials still
// hold keeps serving and logs who holds it (some ids and a count); the removed name can no longer
// be granted or put in a token, and one the reload declares can be at once.
import t, { type Test } from 'tap';
import { decodeJwt } from 'jose';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LISTED_HOLDERS } from '../../gateway/admin/removed-vocabulary.js';
import { REPO_ROOT, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { accessToken, createClient, tokenRequest, type CreatedClient } from '../helpers/oauth.js';
import { until } from '../helpers/poll.js';
import { adminInject, createServiceAccount } from '../helpers/signing.js';

function policyCopy(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'gw-vocabulary-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(join(REPO_ROOT, 'policies'), dir, { recursive: true });
  return dir;
}

/** Rewrites a policy file line by line. */
function edit(dir: string, name: string, change: (lines: string[]) => string[]): void {
  const file = join(dir, name);
  writeFileSync(file, change(readFileSync(file, 'utf8').split('\n')).join('\n'));
}

type LogLine = Record<string, unknown>;
const logLines = (tg: TestGateway): LogLine[] => tg.logs.lines.map((line) => JSON.parse(line) as LogLine);

t.test('a reload that removes held names keeps serving and logs the holders', async (t) => {
  const dir = policyCopy(t);
  const tg = await startTestGateway(t, { store: 'embedded', config: { policies_dir: dir } });
  const holders = LISTED_HOLDERS + 3;
  const statsClients: CreatedClient[] = [];
  for (let i = 0; i < holders; i++) statsClients.push(await createClient(tg, ['stats', 'sales']));
  const salesOnly = await createClient(tg, ['sales']);
  const refunder = await createServiceAccount(tg, { permissions: ['view_balance', 'refund_transaction'] });
  await createServiceAccount(tg, { permissions: ['view_balance'] });
  const token = await accessToken(tg, statsClients[0]!);

  // stats is no longer declared (nor its route), refund_transaction no longer declared.
  edit(dir, 'public.yaml', (lines) => lines.filter((line) => !/^ {2}stats:|\/v1\/stats/.test(line)));
  edit(dir, 'banking.yaml', (lines) => lines.filter((line) => !line.startsWith('  refund_transaction:')));
  t.same(tg.gateway.reloadPolicy(), { ok: true, routes: 18 });

  await until(() => logLines(tg).some((l) => l.scope === 'stats') && logLines(tg).some((l) => l.permission === 'refund_transaction'), 'the holders are logged');
  const scopeLine = logLines(tg).find((l) => l.scope === 'stats')!;
  t.equal(scopeLine.level, 40, 'a warning');
  t.equal(scopeLine.holders, holders, 'every holder is counted');
  const listed = scopeLine.clients as string[];
  t.equal(listed.length, LISTED_HOLDERS, 'the ids listed are capped');
  t.ok(
    listed.every((id) => statsClients.some((c) => c.client_id === id)),
    'only holders are listed',
  );
  t.notOk(listed.includes(salesOnly.client_id));
  t.match(scopeLine.msg, /no longer declares the scope "stats", which OAuth clients hold/);
  const permissionLine = logLines(tg).find((l) => l.permission === 'refund_transaction')!;
  t.same([permissionLine.service_accounts, permissionLine.holders], [[refunder.account.id], 1]);
  t.notOk(
    logLines(tg).some((l) => l.scope === 'sales' || l.permission === 'view_balance'),
    'names still declared are not reported',
  );

  // Serving goes on; what needed the removed scope is refused as any undeclared name is.
  const get = (url: string) => tg.gateway.publicApp.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
  t.equal((await get('/v1/sales')).statusCode, 200, 'the routes still declared serve');
  t.equal((await get('/v1/stats')).json().error, 'route_not_found');
  const narrowed = await tokenRequest(tg, { client_id: statsClients[0]!.client_id, client_secret: statsClients[0]!.client_secret, scope: 'stats' });
  t.equal(narrowed.statusCode, 400);
  t.equal(narrowed.json().error, 'invalid_scope', 'a token for the removed scope is refused');
  const metadata = (await tg.gateway.publicApp.inject({ url: '/.well-known/oauth-authorization-server' })).json();
  t.notOk(metadata.scopes_supported.includes('stats'), 'the metadata no longer offers it');
  t.ok(metadata.scopes_supported.includes('sales'));
  const again = await adminInject(tg, { method: 'POST', url: '/admin/v1/clients', payload: { name: 'late', scopes: ['stats'] } });
  t.equal(again.statusCode, 400);
  t.equal(again.json().message, 'scopes: "stats" is not one of: products, events, sales, sales_refund, financial, affiliates, webhooks');
  const account = await adminInject(tg, {
    method: 'POST',
    url: '/admin/v1/service-accounts',
    payload: { description: 'late', public_key: refunder.account.public_key, permissions: ['refund_transaction'] },
  });
  t.equal(account.statusCode, 400);
  t.match(account.json().message, /^permissions: "refund_transaction" is not one of: view_balance, /);
});

t.test('a token asked for without scope carries only the held scopes the policy still declares', async (t) => {
  const dir = policyCopy(t);
  const tg = await startTestGateway(t, { store: 'embedded', config: { policies_dir: dir } });
  const both = await createClient(tg, ['stats', 'sales']);
  const statsOnly = await createClient(tg, ['stats']);
  const unscoped = (client: CreatedClient) => tokenRequest(tg, { client_id: client.client_id, client_secret: client.client_secret });
  t.equal((await unscoped(both)).json().scope, 'stats sales', 'before the reload: every scope the client holds');

  edit(dir, 'public.yaml', (lines) => lines.filter((line) => !/^ {2}stats:|\/v1\/stats/.test(line)));
  t.same(tg.gateway.reloadPolicy(), { ok: true, routes: 18 });

  const granted = await unscoped(both);
  t.equal(granted.statusCode, 200, granted.body);
  t.equal(granted.json().scope, 'sales', 'the removed scope is left out');
  t.equal(decodeJwt(granted.json().access_token).scope, 'sales', 'and is not in the token');
  const sales = await tg.gateway.publicApp.inject({ method: 'GET', url: '/v1/sales', headers: { authorization: `Bearer ${granted.json().access_token}` } });
  t.equal(sales.statusCode, 200, 'the token serves the scope still declared');

  const refused = await unscoped(statsOnly);
  t.equal(refused.statusCode, 400);
  t.same(refused.json(), {
    error: 'invalid_scope',
    error_description: "None of this client's scopes (stats) is declared by the policy in force.",
    message: "None of this client's scopes (stats) is declared by the policy in force.",
    request_id: refused.json().request_id,
  });
  t.match(refused.json().request_id, /^[0-9a-f-]{36}$/);
  t.equal(tg.upstreams.public.received.length, 1, 'only the request with the declared scope was forwarded');
});

t.test('a scope a reload declares can be granted at once, and opens its route', async (t) => {
  const dir = policyCopy(t);
  const tg = await startTestGateway(t, { store: 'embedded', config: { policies_dir: dir } });
  const create = (scopes: string[]) => adminInject(tg, { method: 'POST', url: '/admin/v1/clients', payload: { name: 'reports', scopes } });
  t.equal((await create(['reports'])).statusCode, 400, 'not declared yet');

  edit(dir, 'public.yaml', (lines) =>
    lines
      .flatMap((line) => (line === 'scopes:' ? [line, '  reports: Read monthly reports'] : [line]))
      .concat('  - { method: GET, path: /v1/reports, scopes: [reports] }', ''),
  );
  t.same(tg.gateway.reloadPolicy(), { ok: true, routes: 20 });
  const created = await create(['reports']);
  t.equal(created.statusCode, 201, created.body);
  const token = await accessToken(tg, created.json(), 'reports');
  const reports = await tg.gateway.publicApp.inject({ method: 'GET', url: '/v1/reports?month=3', headers: { authorization: `Bearer ${token}` } });
  t.equal(reports.statusCode, 200, reports.body);
  t.equal(tg.upstreams.public.received.at(-1)?.url, '/v1/reports?month=3', 'the request reached the upstream');
  const policy = (await adminInject(tg, { method: 'GET', url: '/admin/v1/policy' })).json();
  t.same(policy.scopes[0], { name: 'reports', description: 'Read monthly reports' }, 'declared first in the file, listed first');
  t.notOk(
    tg.logs.lines.some((line) => line.includes('no longer declares')),
    'adding names reports no holders',
  );
});
