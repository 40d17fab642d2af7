// Start errors a person can act on. A port in use is one line naming its variable and the address,
// and nothing claims to listen before; a bad config file shows its caret excerpt as lines; a
// production start lists every upstream without a URL at once; an unknown GATEWAY_* variable is named
// with the setting it most likely meant; an unreachable Redis is named, with the error, in the log
// and in /readyz. Real starts (gateway/main.ts) only where the exit and the output are the point.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { freePort } from '../helpers/gateway-process.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Server as GrpcServer, ServerCredentials } from '@grpc/grpc-js';
import t, { type Test } from 'tap';
import { buildGateway } from '../../gateway/app.js';
import { settingsFrom } from '../../gateway/config/settings.js';
import { checkAddressesFree, listenerAddresses, listenGrpcAt } from '../../gateway/process/listeners.js';
import { REPO_ROOT, startTestGateway } from '../helpers/gateway.js';
import { runGatewayToExit } from '../helpers/gateway-spawn.js';
import { bearerPolicy, policyDirWith } from '../helpers/policy-dir.js';

async function occupied(t: Test): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as AddressInfo).port;
}

function tempDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'gw-start-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

t.test('a public port in use: one line naming GATEWAY_PORT and the address, and no listener claims to listen', async (t) => {
  const port = await occupied(t);
  const { code, output } = await runGatewayToExit({ GATEWAY_PORT: String(port), GATEWAY_ADMIN_PORT: String(await freePort()), GATEWAY_DATA_DIR: tempDir(t) });
  t.equal(code, 1);
  t.match(
    output,
    `GATEWAY_PORT: 127.0.0.1:${port} (the public listener) is already in use (EADDRINUSE): stop what listens there, or set GATEWAY_PORT to a free port\n`,
  );
  t.notMatch(output, /listening|gateway started/i, 'no listener said it listens');
  t.notMatch(output, /\n\s+at /, 'no stack trace');
  t.equal(output.split('\n').filter((line) => line.includes('EADDRINUSE')).length, 1, 'one line');
});

t.test('every listener is checked before any starts: admin and decision ports name their own variables', async (t) => {
  const admin = await occupied(t);
  const decision = await occupied(t);
  const grpc = await occupied(t);
  const addresses = listenerAddresses({
    host: '127.0.0.1',
    port: 0,
    adminHost: '127.0.0.1',
    adminPort: admin,
    decisionHost: '127.0.0.1',
    decisionPort: decision,
    decisionGrpcPort: grpc,
  });
  await t.rejects(checkAddressesFree(addresses), {
    name: 'ListenError',
    message: [
      `GATEWAY_ADMIN_PORT: 127.0.0.1:${admin} (the admin listener) is already in use (EADDRINUSE): stop what listens there, or set GATEWAY_ADMIN_PORT to a free port`,
      `GATEWAY_DECISION_PORT: 127.0.0.1:${decision} (the decision listener) is already in use (EADDRINUSE): stop what listens there, or set GATEWAY_DECISION_PORT to a free port`,
      `GATEWAY_DECISION_GRPC_PORT: 127.0.0.1:${grpc} (the decision-grpc listener) is already in use (EADDRINUSE): stop what listens there, or set GATEWAY_DECISION_GRPC_PORT to a free port`,
    ].join('\n'),
  });
  await t.rejects(
    checkAddressesFree(
      listenerAddresses({
        host: '192.0.2.77',
        port: 8080,
        adminHost: '127.0.0.1',
        adminPort: 0,
        decisionHost: '127.0.0.1',
        decisionPort: null,
        decisionGrpcPort: null,
      }),
    ),
    {
      message: 'GATEWAY_HOST: 192.0.2.77:8080 (the public listener): 192.0.2.77 is not an address of this machine (EADDRNOTAVAIL)',
    },
  );
  await t.resolves(
    checkAddressesFree(
      listenerAddresses({
        host: '127.0.0.1',
        port: await freePort(),
        adminHost: '127.0.0.1',
        adminPort: 0,
        decisionHost: '127.0.0.1',
        decisionPort: null,
        decisionGrpcPort: null,
      }),
    ),
  );
});

t.test('a gRPC decision port taken between the check and the bind: one line naming GATEWAY_DECISION_GRPC_PORT', async (t) => {
  const port = await occupied(t);
  const server = new GrpcServer();
  t.teardown(() => server.forceShutdown());
  const listener = {
    listen: (host: string, at: number) =>
      new Promise<number>((resolve, reject) =>
        server.bindAsync(`${host}:${at}`, ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
      ),
  };
  const [address] = listenerAddresses({
    host: '127.0.0.1',
    port: 0,
    adminHost: '127.0.0.1',
    adminPort: 0,
    decisionHost: '127.0.0.1',
    decisionPort: null,
    decisionGrpcPort: port,
  }).filter((a) => a.listener === 'decision-grpc');
  await t.rejects(listenGrpcAt(listener, address!), {
    name: 'ListenError',
    message: `GATEWAY_DECISION_GRPC_PORT: 127.0.0.1:${port} (the decision-grpc listener) is already in use (EADDRINUSE): stop what listens there, or set GATEWAY_DECISION_GRPC_PORT to a free port`,
  });
});

t.test('a YAML error shows its caret excerpt as lines; an unknown variable is named with the setting it meant', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'gateway.yaml'), 'port: [9300\nadmin_port: 9301\n');
  const { code, output } = await runGatewayToExit({ GATEWAY_CONFIG: join(dir, 'gateway.yaml'), GATEWAY_SIGNATURE_WINDOW: '60' });
  t.equal(code, 1);
  t.match(output, `Invalid setting ${join(dir, 'gateway.yaml')}: is not valid YAML: `);
  t.match(output, /\nport: \[9300\nadmin_port: 9301\n\^/, 'the excerpt and its caret, line by line');
  t.notMatch(output, '\\n', 'no escaped line breaks');
  const warning = JSON.parse(output.split('\n').find((line) => line.includes('unknown_variables'))!);
  t.match(warning, {
    level: 40,
    event: 'unknown_variables',
    variables: ['GATEWAY_SIGNATURE_WINDOW'],
    msg: /GATEWAY_SIGNATURE_WINDOW \(did you mean GATEWAY_SIGNATURE_WINDOW_SECONDS\?\)/,
  });
});

t.test('production without several upstream URLs: one message lists them all, with the variable to set', async (t) => {
  const policies = policyDirWith(t, { 'ledger.yaml': bearerPolicy('ledger') });
  const settings = settingsFrom(
    { policies_dir: policies, upstreams: { ledger: { timeout_ms: 2000 } } },
    { GATEWAY_ENV: 'production', GATEWAY_ADMIN_TOKEN: 'y'.repeat(40), REDIS_URL: 'redis://127.0.0.1:1' },
    REPO_ROOT,
  );
  // Refused before the store is opened: nothing is started.
  await t.rejects(buildGateway(settings), {
    name: 'SettingsError',
    message: [
      `Invalid setting BANKING_UPSTREAM: is required in production (or set GATEWAY_UPSTREAM_BANKING, or upstreams.banking in the config file): upstream banking has no URL; routes to it: ${join(policies, 'banking.yaml')}, routes GET /v1/balance, GET /v1/account, GET /v1/account-limits and 4 more`,
      `Invalid setting GATEWAY_UPSTREAM_LEDGER: is required in production (or set upstreams.ledger in the config file): upstream ledger has no URL; routes to it: ${join(policies, 'ledger.yaml')}, route GET /v1/ledger/{id}`,
      `Invalid setting PUBLIC_UPSTREAM: is required in production (or set GATEWAY_UPSTREAM_PUBLIC, or upstreams.public in the config file): upstream public has no URL; routes to it: ${join(policies, 'public.yaml')}, routes GET /v1/sales, GET /v1/sales/{id}, POST /v1/sales/{id}/refund and 9 more`,
    ].join('\n'),
  });
});

t.test('in development another upstream a policy names must be configured: the start names the file and the upstream', async (t) => {
  const policies = policyDirWith(t, { 'ledger.yaml': bearerPolicy('ledger') });
  const settings = settingsFrom(
    {
      admin_token: 'z'.repeat(32),
      policies_dir: policies,
      public_upstream: 'http://127.0.0.1:1',
      banking_upstream: 'http://127.0.0.1:1',
      upstreams: { ledger: null },
    },
    {},
    REPO_ROOT,
  );
  await t.rejects(buildGateway(settings), {
    name: 'SettingsError',
    message: `Invalid setting GATEWAY_UPSTREAM_LEDGER: is required (or set upstreams.ledger in the config file): upstream ledger has no URL; routes to it: ${join(policies, 'ledger.yaml')}, route GET /v1/ledger/{id}`,
  });
});

t.test('Redis unreachable: the log and /readyz name its address (no password) and the error', async (t) => {
  const port = await freePort();
  const tg = await startTestGateway(t, { config: { redis_url: `redis://:hunter2hunter2@127.0.0.1:${port}` } });
  const ready = await tg.gateway.adminApp.inject({ method: 'GET', url: '/readyz' });
  t.equal(ready.statusCode, 503);
  t.equal(ready.json().details.store, `redis://:***@127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}`);
  const down = tg.logs.lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line.event === 'store_down');
  t.match(down, {
    store: `redis://:***@127.0.0.1:${port}`,
    reason: `connect ECONNREFUSED 127.0.0.1:${port}`,
    msg: `credential store unreachable at start: redis://:***@127.0.0.1:${port} (connect ECONNREFUSED 127.0.0.1:${port}); not ready, requests get 503 store_unavailable until it answers`,
  });
  t.notMatch(tg.logs.text + ready.body, 'hunter2', 'the password is never shown');
});
