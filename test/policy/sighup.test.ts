// SIGHUP to a real gateway process: a valid policy change is picked up while requests keep being
// answered; a bad file is refused, the running policy is kept and the log says why.
import t from 'tap';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { REPO_ROOT } from '../helpers/gateway.js';
import { startGatewayProcess, type GatewayProcess } from '../helpers/gateway-process.js';

async function waitForOutput(gw: GatewayProcess, text: string, occurrences = 1): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (gw.output().split(text).length - 1 >= occurrences) return;
    await sleep(50);
  }
  throw new Error(`the gateway never logged ${JSON.stringify(text)}:\n${gw.output()}`);
}

t.test('SIGHUP reloads the policy of a running gateway', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-sighup-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const policies = join(dir, 'policies');
  cpSync(join(REPO_ROOT, 'policies'), policies, { recursive: true });
  const adminToken = 'a'.repeat(40);
  const gw = await startGatewayProcess(t, {
    GATEWAY_POLICIES_DIR: policies,
    GATEWAY_DATA_DIR: join(dir, 'data'),
    GATEWAY_ADMIN_TOKEN: adminToken,
    GATEWAY_LOG_LEVEL: 'warn',
  });

  const created = await fetch(`${gw.adminUrl}/admin/v1/clients`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'sighup', scopes: ['stats', 'sales'] }),
  });
  t.equal(created.status, 201);
  const client = (await created.json()) as { client_id: string; client_secret: string };
  const tokenResponse = await fetch(`${gw.publicUrl}/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: client.client_id, client_secret: client.client_secret }),
  });
  const { access_token: token } = (await tokenResponse.json()) as { access_token: string };
  const get = (path: string) => fetch(`${gw.publicUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });

  t.equal((await get('/v1/reports')).status, 404);

  // Keep requests flowing while the policy changes under them.
  let stop = false;
  const statuses: number[] = [];
  const traffic = (async () => {
    while (!stop) statuses.push((await get('/v1/sales/1')).status);
  })();

  const publicFile = join(policies, 'public.yaml');
  const original = readFileSync(publicFile, 'utf8');
  writeFileSync(publicFile, `${original}  - { method: GET, path: /v1/reports, scopes: [stats] }\n`);
  gw.child.kill('SIGHUP');
  await waitForOutput(gw, 'policy reloaded');
  const reports = await get('/v1/reports');
  t.equal(reports.status, 200, 'the new route is served');
  t.equal(((await reports.json()) as { url: string }).url, '/v1/reports');

  writeFileSync(
    publicFile,
    `${original}  - { method: GET, path: /v1/reports, scopes: [stats] }\n  - { method: GET, path: /v1/sales/export, scopes: [stats] }\n`,
  );
  gw.child.kill('SIGHUP');
  await waitForOutput(gw, 'policy reload rejected; the running policy is kept');
  t.match(gw.output(), `${publicFile}, route GET /v1/sales/export: could match the same requests`, 'the log says which file and route');
  t.equal((await get('/v1/reports')).status, 200, 'the running policy is kept');

  stop = true;
  await traffic;
  t.ok(statuses.length > 0, `${statuses.length} requests during the reloads`);
  t.same(
    statuses,
    statuses.map(() => 200),
    'no request was dropped or refused during the reloads',
  );
});
