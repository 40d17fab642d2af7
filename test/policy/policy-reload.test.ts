// Policy reload: a valid change is picked up without dropping requests; a bad file keeps the
// running policy and says why. A bad policy at start stops the gateway.
import t, { type Test } from 'tap';
import { cpSync, mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildGateway } from '../../gateway/app.js';
import { PolicyError } from '../../gateway/policy/policy-loader.js';
import { REPO_ROOT, startTestGateway, testSettings } from '../helpers/gateway.js';
import { accessToken, createClient } from '../helpers/oauth.js';

function policyCopy(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'gw-reload-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(join(REPO_ROOT, 'policies'), dir, { recursive: true });
  return dir;
}

const REPORTS_ROUTE = '  - { method: GET,    path: /v1/reports,              scopes: [stats] }\n';

t.test('reloadPolicy picks up a valid change', async (t) => {
  const dir = policyCopy(t);
  const tg = await startTestGateway(t, { config: { policies_dir: dir } });
  const client = await createClient(tg, ['stats', 'sales']);
  const token = await accessToken(tg, client);
  const get = (url: string) => tg.gateway.publicApp.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });

  t.equal((await get('/v1/reports')).json().error, 'route_not_found');
  writeFileSync(join(dir, 'public.yaml'), readFileSync(join(dir, 'public.yaml'), 'utf8') + REPORTS_ROUTE);
  t.same(tg.gateway.reloadPolicy(), { ok: true, routes: 20 });
  const reports = await get('/v1/reports?month=3');
  t.equal(reports.statusCode, 200, reports.body);
  t.equal(reports.json().url, '/v1/reports?month=3');
  t.equal((await get('/v1/sales')).statusCode, 200, 'existing routes keep working');
  const metrics = await tg.gateway.metrics.registry.getSingleMetricAsString('gateway_policy_reloads_total');
  t.match(metrics, 'gateway_policy_reloads_total{result="ok"} 1');
});

t.test('a bad file on reload keeps the running policy and says why', async (t) => {
  const dir = policyCopy(t);
  const tg = await startTestGateway(t, { config: { policies_dir: dir } });
  const client = await createClient(tg, ['sales']);
  const token = await accessToken(tg, client);
  writeFileSync(join(dir, 'public.yaml'), readFileSync(join(dir, 'public.yaml'), 'utf8') + '  - { method: GET, path: /v1/sales/export, scopes: [sales] }\n');
  const result = tg.gateway.reloadPolicy();
  t.equal(result.ok, false);
  t.equal(result.routes, 19, 'the running policy (19 routes) is kept');
  t.match(result.error, `${join(dir, 'public.yaml')}, route GET /v1/sales/export: could match the same requests as`);
  const sale = await tg.gateway.publicApp.inject({ method: 'GET', url: '/v1/sales/export', headers: { authorization: `Bearer ${token}` } });
  t.equal(sale.statusCode, 200, 'the old route /v1/sales/{id} still serves');
  t.equal(sale.json().url, '/v1/sales/export');
  writeFileSync(join(dir, 'public.yaml'), 'routes: [');
  t.match(tg.gateway.reloadPolicy(), { ok: false, routes: 19, error: /public\.yaml: not valid YAML/ });
  const metrics = await tg.gateway.metrics.registry.getSingleMetricAsString('gateway_policy_reloads_total');
  t.match(metrics, 'gateway_policy_reloads_total{result="rejected"} 2');
});

t.test('requests in flight during reloads are all answered', async (t) => {
  const dir = policyCopy(t);
  const tg = await startTestGateway(t, { config: { policies_dir: dir } });
  const client = await createClient(tg, ['sales']);
  const token = await accessToken(tg, client);
  const original = readFileSync(join(dir, 'public.yaml'), 'utf8');
  const requests = Array.from({ length: 60 }, (_, i) =>
    tg.gateway.publicApp.inject({ method: 'GET', url: `/v1/sales/${i}`, headers: { authorization: `Bearer ${token}` } }),
  );
  for (let i = 0; i < 10; i++) {
    writeFileSync(join(dir, 'public.yaml'), i % 2 === 0 ? original + REPORTS_ROUTE : original);
    t.equal(tg.gateway.reloadPolicy().ok, true);
    await new Promise((resolve) => setImmediate(resolve));
  }
  const statuses = (await Promise.all(requests)).map((r) => r.statusCode);
  t.same(
    statuses,
    statuses.map(() => 200),
  );
  t.equal(tg.upstreams.public.received.length, 60);
});

t.test('a bad policy at start stops buildGateway with the file and route', async (t) => {
  const dir = policyCopy(t);
  writeFileSync(
    join(dir, 'banking.yaml'),
    'upstream: banking\nauth: signature\nroutes:\n  - { method: GET, path: /v1/balance, permissions: [see_everything] }\n',
  );
  const { settings } = await testSettings({ publicUpstream: 'http://127.0.0.1:1', bankingUpstream: 'http://127.0.0.1:1', config: { policies_dir: dir } });
  await t.rejects(buildGateway(settings), new PolicyError(`${join(dir, 'banking.yaml')}, route GET /v1/balance: unknown permission "see_everything"`));
});
