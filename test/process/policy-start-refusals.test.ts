// A start the policies refuse ends with one message a person can act on, on stderr, and exit 1: an
// upstream no setting configures, a scope no file declares, and in production every routed upstream
// without a URL, whether the settings declare it or not, listed at once with the variable to set.
// Real starts (gateway/main.ts), since the exit and that one message are the point; the three run
// side by side.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runGatewayToExit } from '../helpers/gateway-spawn.js';
import { policyDirWith } from '../helpers/policy-dir.js';

/** Starts gateway/main.ts on free ports with a data directory of its own; its exit code and stderr once it exits. */
async function start(env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-refused-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const { code, stderr } = await runGatewayToExit({ GATEWAY_PORT: '0', GATEWAY_ADMIN_PORT: '0', GATEWAY_DATA_DIR: dataDir, ...env });
  return { code, stderr };
}

const LEDGER_READ = 'scopes:\n  ledger_read: Read ledger entries\n';
const ledgerPolicy = (declared: string) =>
  `upstream: ledger\nauth: bearer\n${declared}routes:\n  - { method: GET, path: "/v1/ledger/{id}", scopes: [ledger_read] }\n`;
const SHIPPED_SCOPES = 'stats, products, events, sales, sales_refund, financial, affiliates, webhooks';

const unknownUpstreamDir = policyDirWith(t, { 'ledger.yaml': ledgerPolicy(LEDGER_READ) });
const undeclaredScopeDir = policyDirWith(t, { 'ledger.yaml': ledgerPolicy('') });
const productionDir = policyDirWith(t, {
  'ledger.yaml': ledgerPolicy(LEDGER_READ),
  'inventory-v2.yaml': 'upstream: inventory-v2\nauth: bearer\nroutes:\n  - { method: GET, path: /v2/stock, scopes: [products] }\n',
});
// The ledger is declared, with a timeout but no URL; inventory-v2 is configured nowhere.
const configDir = mkdtempSync(join(tmpdir(), 'gw-refused-config-'));
t.teardown(() => rmSync(configDir, { recursive: true, force: true }));
writeFileSync(join(configDir, 'gateway.yaml'), 'upstreams:\n  ledger: { timeout_ms: 2000 }\n');

const [unknownUpstream, undeclaredScope, production] = [
  start({ GATEWAY_POLICIES_DIR: unknownUpstreamDir }),
  // The ledger has a URL (never contacted): the scope is all that is wrong.
  start({ GATEWAY_POLICIES_DIR: undeclaredScopeDir, GATEWAY_UPSTREAM_LEDGER: 'http://127.0.0.1:9' }),
  start({
    GATEWAY_ENV: 'production',
    GATEWAY_CONFIG: join(configDir, 'gateway.yaml'),
    GATEWAY_POLICIES_DIR: productionDir,
    GATEWAY_ADMIN_TOKEN: 'p'.repeat(40),
    // Never reached: the policy is refused before the store is opened.
    REDIS_URL: 'redis://127.0.0.1:9',
    PUBLIC_UPSTREAM: 'http://127.0.0.1:9',
  }),
];

t.test('a policy naming an upstream nothing configures: the variable to set, and the file naming it', async (t) => {
  t.same(await unknownUpstream, {
    code: 1,
    stderr: [
      'gateway: not started:',
      `Invalid setting GATEWAY_UPSTREAM_LEDGER: is required (or set upstreams.ledger in the config file): upstream ledger is not configured (configured: banking, public); routes to it: ${join(unknownUpstreamDir, 'ledger.yaml')}, route GET /v1/ledger/{id}`,
      '',
    ].join('\n'),
  });
});

t.test('a route naming a scope no file declares: the file, the route and the declared ones', async (t) => {
  t.same(await undeclaredScope, {
    code: 1,
    stderr: [
      'gateway: not started:',
      `${join(undeclaredScopeDir, 'ledger.yaml')}, route GET /v1/ledger/{id}: unknown scope "ledger_read": declare it under scopes: in a policy file (declared: ${SHIPPED_SCOPES})`,
      '',
    ].join('\n'),
  });
});

t.test('production: every routed upstream without a URL, declared or not, in one message with its variable', async (t) => {
  t.same(await production, {
    code: 1,
    stderr: [
      'gateway: not started:',
      `Invalid setting BANKING_UPSTREAM: is required in production (or set GATEWAY_UPSTREAM_BANKING, or upstreams.banking in the config file): upstream banking has no URL; routes to it: ${join(productionDir, 'banking.yaml')}, routes GET /v1/balance, GET /v1/account, GET /v1/account-limits and 4 more`,
      `Invalid setting GATEWAY_UPSTREAM_INVENTORY_V2: is required in production (or set upstreams.inventory-v2 in the config file): upstream inventory-v2 is not configured (configured: banking, ledger, public); routes to it: ${join(productionDir, 'inventory-v2.yaml')}, route GET /v2/stock`,
      `Invalid setting GATEWAY_UPSTREAM_LEDGER: is required in production (or set upstreams.ledger in the config file): upstream ledger has no URL; routes to it: ${join(productionDir, 'ledger.yaml')}, route GET /v1/ledger/{id}`,
      '',
    ].join('\n'),
  });
});
