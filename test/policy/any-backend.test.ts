// Any backend, end to end: two upstreams of a platform team's own, one in the config file's
// upstreams: with a timeout of its own, one through GATEWAY_UPSTREAM_INVENTORY_V2, and policy files
// declaring a scope and a permission of their own. Each request reaches its own upstream with the
// identity the gateway vouches for, a signed body arrives intact, a request lacking the new scope or
// permission is refused with its catalog code, and the shipped routes still reach theirs. In process:
// the settings are read from a real config file and an environment as a start reads them.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { buildGateway } from '../../gateway/app.js';
import { loadSettings } from '../../gateway/config/settings.js';
import { ERRORS } from '../../gateway/errors.js';
import { startEchoUpstream, type EchoUpstream } from '../../gateway/examples/echo-upstream.js';
import { REPO_ROOT, type TestGateway } from '../helpers/gateway.js';
import { LogCapture } from '../helpers/log-capture.js';
import { accessToken, createClient } from '../helpers/oauth.js';
import { policyDirWith } from '../helpers/policy-dir.js';
import { adminInject, createServiceAccount, signedInject } from '../helpers/signing.js';

const LEDGER_POLICY = `upstream: ledger
auth: bearer
scopes:
  ledger_read: Read ledger entries
routes:
  - { method: GET, path: "/v1/ledger/entries/{id}", scopes: [ledger_read] }
`;

const INVENTORY_POLICY = `upstream: inventory-v2
auth: signature
permissions:
  adjust_stock: { description: Adjust stock levels, moves_money: false }
routes:
  - { method: POST, path: /v2/stock/adjustments, permissions: [adjust_stock] }
`;

async function echo(t: Test, name: string): Promise<EchoUpstream> {
  const upstream = await startEchoUpstream(name);
  t.teardown(() => upstream.close());
  return upstream;
}

interface AnyBackendGateway extends TestGateway {
  ledger: EchoUpstream;
  inventory: EchoUpstream;
}

/** A gateway started from a config file and an environment, as main.ts reads them, with four upstreams on real servers. */
async function startAnyBackend(t: Test): Promise<AnyBackendGateway> {
  const [publicApi, banking, ledger, inventory] = await Promise.all([echo(t, 'public'), echo(t, 'banking'), echo(t, 'ledger'), echo(t, 'inventory-v2')]);
  const configDir = mkdtempSync(join(tmpdir(), 'gw-any-backend-'));
  t.teardown(() => rmSync(configDir, { recursive: true, force: true }));
  const config = join(configDir, 'gateway.yaml');
  writeFileSync(
    config,
    [
      `admin_token: ${'a'.repeat(40)}`,
      `policies_dir: ${policyDirWith(t, { 'ledger.yaml': LEDGER_POLICY, 'inventory-v2.yaml': INVENTORY_POLICY })}`,
      `data_dir: ${configDir}`,
      'upstreams:',
      `  ledger: { url: "${ledger.url}", timeout_ms: 3000 }`,
      '',
    ].join('\n'),
  );
  const env = { GATEWAY_UPSTREAM_INVENTORY_V2: inventory.url, PUBLIC_UPSTREAM: publicApi.url, BANKING_UPSTREAM: banking.url };
  // Tests never write the embedded store's snapshot file.
  const settings = Object.freeze({ ...loadSettings({ configFile: config, env, cwd: REPO_ROOT }), embeddedStorePath: undefined });
  const logs = new LogCapture();
  const gateway = await buildGateway(settings, { logStream: logs });
  t.teardown(() => gateway.close());
  return { gateway, settings, adminToken: settings.adminToken!, upstreams: { public: publicApi, banking }, logs, redisPrefix: undefined, ledger, inventory };
}

/** The refusal body every gateway error has: the catalog's code and status, what is missing, and the request id. */
function assertRefused(t: Test, response: { statusCode: number; json(): any }, code: 'insufficient_scope' | 'permission_denied', message: string): void {
  t.equal(response.statusCode, ERRORS[code].status);
  t.same(response.json(), { error: code, message, request_id: response.json().request_id });
  t.match(response.json().request_id, /^[0-9a-f-]{36}$/);
}

t.test('two more upstreams with their own scope and permission: each request reaches its own, with its identity', async (t) => {
  const tg = await startAnyBackend(t);
  t.match(
    tg.settings.upstreams,
    { ledger: { url: tg.ledger.url, timeoutMs: 3000 }, 'inventory-v2': { url: tg.inventory.url, timeoutMs: 10_000 } },
    "the ledger's own timeout from the file; the variable's upstream takes the default",
  );
  const vocabulary = (await adminInject(tg, { method: 'GET', url: '/admin/v1/policy' })).json();
  t.ok(
    vocabulary.scopes.some((s: any) => s.name === 'ledger_read' && s.description === 'Read ledger entries'),
    'the new scope is declared',
  );
  t.ok(
    vocabulary.permissions.some((p: any) => p.name === 'adjust_stock' && p.description === 'Adjust stock levels'),
    'the new permission is declared',
  );

  await t.test('a Bearer route with the new scope reaches the ledger', async (t) => {
    const reader = await createClient(tg, ['ledger_read'], { account_id: 'acct-7' });
    const response = await tg.gateway.publicApp.inject({
      method: 'GET',
      url: '/v1/ledger/entries/42?year=2025',
      headers: { authorization: `Bearer ${await accessToken(tg, reader)}` },
    });
    t.equal(response.statusCode, 200, response.body);
    t.match(response.json(), { upstream: 'ledger', method: 'GET', url: '/v1/ledger/entries/42?year=2025' });
    t.equal(tg.ledger.received.length, 1);
    const headers = tg.ledger.received[0]!.headers;
    t.equal(headers['x-gateway-client-id'], reader.client_id);
    t.equal(headers['x-gateway-scopes'], 'ledger_read');
    t.equal(headers['x-gateway-account-id'], 'acct-7');
    t.equal(headers['x-gateway-service-account-id'], undefined);
    t.equal(headers.authorization, undefined, 'the token is not forwarded');

    const salesOnly = await createClient(tg, ['sales']);
    const refused = await tg.gateway.publicApp.inject({
      method: 'GET',
      url: '/v1/ledger/entries/42',
      headers: { authorization: `Bearer ${await accessToken(tg, salesOnly)}` },
    });
    assertRefused(t, refused, 'insufficient_scope', 'This route requires the scope ledger_read.');
    t.equal(tg.ledger.received.length, 1, 'the refused request did not reach the ledger');
  });

  await t.test('a signed route with a body and the new permission reaches inventory-v2', async (t) => {
    const adjuster = await createServiceAccount(tg, { permissions: ['adjust_stock'], account_id: 'acct-9' });
    const body = '{"sku":"A-1","delta":-3,"note":"damaged in transit"}';
    const response = await signedInject(tg, adjuster, { method: 'POST', url: '/v2/stock/adjustments', body, headers: { 'content-type': 'application/json' } });
    t.equal(response.statusCode, 200, response.body);
    t.match(response.json(), { upstream: 'inventory-v2', method: 'POST', url: '/v2/stock/adjustments', body });
    t.equal(tg.inventory.received.length, 1);
    const received = tg.inventory.received[0]!;
    t.equal(received.body, body, 'the signed body arrives byte for byte');
    t.equal(received.headers['x-gateway-service-account-id'], adjuster.account.id);
    t.equal(received.headers['x-gateway-permissions'], 'adjust_stock');
    t.equal(received.headers['x-gateway-account-id'], 'acct-9');
    t.equal(received.headers['x-gateway-client-id'], undefined);
    t.equal(received.headers.signature, undefined, 'the signature is not forwarded');

    const viewer = await createServiceAccount(tg, { permissions: ['view_balance'] });
    const refused = await signedInject(tg, viewer, { method: 'POST', url: '/v2/stock/adjustments', body, headers: { 'content-type': 'application/json' } });
    assertRefused(t, refused, 'permission_denied', 'This route requires the permission adjust_stock.');
    t.equal(tg.inventory.received.length, 1, 'the refused request did not reach inventory-v2');
  });

  await t.test('the shipped public and banking routes still reach theirs', async (t) => {
    const seller = await createClient(tg, ['sales']);
    const sale = await tg.gateway.publicApp.inject({
      method: 'GET',
      url: '/v1/sales/9',
      headers: { authorization: `Bearer ${await accessToken(tg, seller)}` },
    });
    t.equal(sale.statusCode, 200, sale.body);
    t.match(sale.json(), { upstream: 'public', url: '/v1/sales/9', headers: { 'x-gateway-client-id': seller.client_id, 'x-gateway-scopes': 'sales' } });
    const account = await createServiceAccount(tg, { permissions: ['view_balance'] });
    const balance = await signedInject(tg, account, { method: 'GET', url: '/v1/balance' });
    t.equal(balance.statusCode, 200, balance.body);
    t.match(balance.json(), {
      upstream: 'banking',
      url: '/v1/balance',
      headers: { 'x-gateway-service-account-id': account.account.id, 'x-gateway-permissions': 'view_balance' },
    });
    t.same(
      [tg.upstreams.public.received.length, tg.upstreams.banking.received.length, tg.ledger.received.length, tg.inventory.received.length],
      [1, 1, 1, 1],
      'every upstream got its own request and nothing else',
    );
  });
});
