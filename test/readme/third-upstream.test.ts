// The README's third upstream, run as written: its config block and policy file configure a gateway
// (in process, listening on free ports), and its shell block (curl, then gatewayctl from source)
// reaches the ledger through a Bearer and a signed route. Only the ports and the ledger's URL differ.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import { buildGateway } from '../../gateway/app.js';
import { loadSettings } from '../../gateway/config/settings.js';
import { startEchoUpstream, type EchoUpstream } from '../../gateway/examples/echo-upstream.js';
import { REPO_ROOT } from '../helpers/gateway.js';
import { LogCapture } from '../helpers/log-capture.js';
import { policyDirWith } from '../helpers/policy-dir.js';

const HEADING = '### A third upstream, end to end';
const LEDGER_URL_SHOWN = 'http://ledger.internal:8080';

/** The section's code blocks of one language, in order. */
function blocks(language: string): string[] {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf(`\n${HEADING}\n`);
  if (start < 0) throw new Error(`README has no ${HEADING}`);
  const section = readme.slice(start + 1).split(/\n#{2,3} /)[0]!;
  return [...section.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);
}

async function echo(t: Test, name: string): Promise<EchoUpstream> {
  const upstream = await startEchoUpstream(name);
  t.teardown(() => upstream.close());
  return upstream;
}

t.test("the README's third upstream works when pasted as written", async (t) => {
  const [config, policy] = blocks('yaml');
  const [script] = blocks('sh');
  t.ok(config?.includes(LEDGER_URL_SHOWN) && policy?.includes('upstream: ledger') && script, 'the config, the policy file and the shell block');
  const [publicApi, banking, ledger] = [await echo(t, 'public'), await echo(t, 'banking'), await echo(t, 'ledger')];

  // The directory the reader works in: the gateway's admin token where npm start keeps it.
  const workDir = mkdtempSync(join(tmpdir(), 'gw-third-upstream-'));
  t.teardown(() => rmSync(workDir, { recursive: true, force: true }));
  const adminToken = 'r'.repeat(40);
  mkdirSync(join(workDir, '.gateway'));
  writeFileSync(join(workDir, '.gateway', 'admin-token'), `${adminToken}\n`);
  writeFileSync(join(workDir, 'gateway.yaml'), config!.replace(LEDGER_URL_SHOWN, ledger.url));

  const env = {
    GATEWAY_POLICIES_DIR: policyDirWith(t, { 'ledger.yaml': policy! }),
    GATEWAY_ADMIN_TOKEN: adminToken,
    PUBLIC_UPSTREAM: publicApi.url,
    BANKING_UPSTREAM: banking.url,
  };
  // Tests never write the embedded store's snapshot file.
  const settings = Object.freeze({ ...loadSettings({ configFile: join(workDir, 'gateway.yaml'), env, cwd: workDir }), embeddedStorePath: undefined });
  t.match(settings.upstreams.ledger, { url: ledger.url, timeoutMs: 3000 }, 'the ledger with its own timeout');
  const gateway = await buildGateway(settings, { logStream: new LogCapture() });
  t.teardown(() => gateway.close());
  const port = async (app: typeof gateway.publicApp) => {
    await app.listen({ host: '127.0.0.1', port: 0 });
    return (app.server.address() as AddressInfo).port;
  };
  const [publicPort, adminPort] = [await port(gateway.publicApp), await port(gateway.adminApp)];

  // gatewayctl from source, so that the test needs no build; tsx and the paths of tsconfig.json from the repository.
  const gatewayctl = `gatewayctl() { TSX_TSCONFIG_PATH='${REPO_ROOT}tsconfig.json' node --import '${import.meta.resolve('tsx')}' '${REPO_ROOT}gateway/cli/main.ts' "$@"; }\n`;
  const run =
    gatewayctl +
    script!
      .replaceAll('npx gatewayctl', 'gatewayctl')
      .replaceAll('127.0.0.1:8080', `127.0.0.1:${publicPort}`)
      .replaceAll('127.0.0.1:8081', `127.0.0.1:${adminPort}`);
  const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', run], {
    cwd: workDir,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, GATEWAY_ADMIN_PORT: String(adminPort) },
  });

  t.equal(ledger.received.length, 2, 'both requests reached the ledger');
  const [read, post] = ledger.received;
  t.match(read, { method: 'GET', url: '/v1/ledger/entries/42', headers: { 'x-gateway-scopes': 'ledger_read' } });
  t.match(read?.headers['x-gateway-client-id'], /^[0-9a-f-]{36}$/);
  t.match(post, { method: 'POST', url: '/v1/ledger/entries', body: '{"amount":"10.00"}', headers: { 'x-gateway-permissions': 'ledger_post' } });
  t.match(post?.headers['x-gateway-service-account-id'], /^sa_/);
  for (const request of [read, post]) {
    t.notOk(request?.headers.authorization ?? request?.headers.signature ?? request?.headers['x-access-id'], 'no credential reached the ledger');
  }
  t.same([publicApi.received, banking.received], [[], []], 'nothing went to the shipped upstreams');
  t.match(stdout, /"upstream":"ledger","method":"GET","url":"\/v1\/ledger\/entries\/42"/, 'curl shows the echo of the ledger');
  t.match(stdout, /"upstream":"ledger","method":"POST","url":"\/v1\/ledger\/entries"/, 'gatewayctl request shows it too');
  t.match(stdout, /ledger_post +Post ledger entries +yes +POST \/v1\/ledger\/entries/, 'policy permissions lists the new permission');
});
