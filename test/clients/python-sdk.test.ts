// The Python client package (clients/python) installed as its README says, offline, into a fresh
// virtual environment of Debian's python3, then used from that environment: its own unit tests, the
// same headers as the TypeScript signer for the same inputs, and requests + httpx (sync and async)
// through every banking route of a real gateway process, with an OpenSSH and a PKCS#8 key.
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { loadPolicyDirectory } from '../../gateway/policy/policy-loader.js';
import { RouteTable } from '../../gateway/policy/route-table.js';
import { signRequest, type SignRequestOptions } from '../../gateway/signing/index.js';
import { bankingRequests } from '../helpers/banking-routes.js';
import { REPO_ROOT } from '../helpers/gateway.js';
import { startGatewayProcess } from '../helpers/gateway-process.js';
import { sharedRedisDeployment } from '../helpers/process-ops.js';

// Debian's interpreter: python3-cryptography, -requests, -httpx, -setuptools and -venv come from apt
// (a pyenv python3 earlier on PATH has neither the packages nor `wheel` for an offline build).
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
const CHECK_SCRIPT = `${REPO_ROOT}test/clients/python_sdk_check.py`;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command with a minimal environment (no proxy, no pip configuration) and a time limit. */
function run(command: string, args: string[], options: { cwd: string; timeoutMs: number }): Promise<Run> {
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, PIP_CONFIG_FILE: '/dev/null', PIP_NO_INDEX: '1', PIP_DISABLE_PIP_VERSION_CHECK: '1', PIP_NO_INPUT: '1', PYTHONDONTWRITEBYTECODE: '1' };
  return new Promise((resolve) => {
    execFile(command, args, { cwd: options.cwd, env, timeout: options.timeoutMs, killSignal: 'SIGKILL', maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) || 1 : 0, stdout, stderr });
    });
  });
}

const dir = mkdtempSync(join(tmpdir(), 'python-sdk-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
// A copy of the package, so the in-tree build (build/, *.egg-info) never touches the working tree.
const checkout = join(dir, 'repo');
cpSync(`${REPO_ROOT}clients/python`, join(checkout, 'clients/python'), { recursive: true, filter: (src) => !/(^|\/)(build|[^/]*\.egg-info|__pycache__)$/.test(src) });
const venvPython = join(dir, 'venv/bin/python');

/** Asserts a clean exit, with the output in the message only when it was not. */
function succeeded(t: Test, result: Run, what: string): void {
  t.equal(result.code, 0, result.code === 0 ? what : `${what}:\n${result.stdout}\n${result.stderr}`);
}

function writeJson(name: string, value: unknown): string {
  writeFileSync(join(dir, name), JSON.stringify(value));
  return join(dir, name);
}

/** A PKCS#8 PEM key (as gatewayctl keygen writes it) and its ssh-ed25519 line (RFC 8709 wire form). */
function pkcs8Key(): { pem: string; publicLine: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const sshString = (bytes: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, bytes.length]), bytes]);
  const blob = Buffer.concat([sshString(Buffer.from('ssh-ed25519')), sshString(Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url'))]);
  return { pem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(), publicLine: `ssh-ed25519 ${blob.toString('base64')} python-sdk@test` };
}

/** An OpenSSH key made by ssh-keygen, and a PKCS#8 PEM key. */
async function keys(t: Test): Promise<{ name: string; file: string; publicLine: string }[]> {
  const openssh = join(dir, `id_ed25519_${Math.random().toString(36).slice(2)}`);
  const made = await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'python-sdk@test', '-f', openssh], { cwd: dir, timeoutMs: 20_000 });
  succeeded(t, made, 'ssh-keygen');
  t.match(readFileSync(openssh, 'utf8'), /^-----BEGIN OPENSSH PRIVATE KEY-----\n/);
  const pkcs8 = pkcs8Key();
  const pemFile = `${openssh}.pem`;
  writeFileSync(pemFile, pkcs8.pem, { mode: 0o600 });
  return [
    { name: 'openssh', file: openssh, publicLine: readFileSync(`${openssh}.pub`, 'utf8').trim() },
    { name: 'pkcs8', file: pemFile, publicLine: pkcs8.publicLine },
  ];
}

t.test('pip installs the package offline into a fresh virtual environment', async (t) => {
  const venv = await run(PYTHON, ['-m', 'venv', '--system-site-packages', join(dir, 'venv')], { cwd: dir, timeoutMs: 60_000 });
  succeeded(t, venv, 'python3 -m venv --system-site-packages');
  // PIP_NO_INDEX=1 and PIP_CONFIG_FILE=/dev/null (run above): nothing may come from an index.
  const pip = await run(venvPython, ['-m', 'pip', 'install', '--no-build-isolation', './clients/python'], { cwd: checkout, timeoutMs: 90_000 });
  succeeded(t, pip, 'pip install --no-build-isolation ./clients/python');
  t.match(pip.stdout, /Successfully installed access-gateway-signing-0\.1\.0/);

  const where = await run(venvPython, ['-c', 'import access_gateway_signing, cryptography; print(access_gateway_signing.__file__)'], { cwd: dir, timeoutMs: 20_000 });
  succeeded(t, where, 'import access_gateway_signing');
  t.ok(where.stdout.startsWith(join(dir, 'venv/lib/')), `imported from the virtual environment: ${where.stdout}`);

  // requests and httpx are optional: without them the package imports, and only the auth class fails.
  const withoutClients = await run(
    venvPython,
    ['-c', "import sys; sys.modules['requests'] = sys.modules['httpx'] = None\nimport access_gateway_signing as s\ntry:\n    s.RequestsAuth\nexcept ImportError:\n    print('optional')"],
    { cwd: dir, timeoutMs: 20_000 },
  );
  t.equal(withoutClients.stdout.trim(), 'optional', `the package imports without requests and httpx ${withoutClients.stderr}`.trim());
});

t.test("the package's unit tests pass in the virtual environment (RFC 9421 B.2.6, RFC 9530, SIGNING.md)", async (t) => {
  const result = await run(venvPython, ['-m', 'unittest', 'discover', '-v', '-s', join(checkout, 'clients/python/tests')], { cwd: dir, timeoutMs: 60_000 });
  succeeded(t, result, 'python -m unittest discover');
  t.match(result.stderr, /\nRan \d+ tests in [\d.]+s\n\nOK\n/);
  t.notMatch(result.stderr, /skipped/, 'requests and httpx are installed, so nothing is skipped');
});

t.test('sign_request gives the headers of the TypeScript signRequest for the same inputs', async (t) => {
  const accessId = '3f2b9c1e-7a4d-4e8f-9b6a-2c1d0e5f4a3b';
  const fixed = { created: 1735689600, nonce: 'q4Jb2nK8sVx1ZpR7tW3yLg' };
  const inputs: Omit<SignRequestOptions, 'privateKey' | 'accessId'>[] = [
    { method: 'GET', url: 'http://127.0.0.1:8080/v1/balance', ...fixed },
    { method: 'get', url: 'https://Bank.Example.com:443/v1/transactions?page=2&size=10', ...fixed },
    { method: 'GET', url: 'https://bank.example.com:8443/v1/transactions/tx%201?', ...fixed },
    { method: 'POST', url: 'https://bank.example.com/v1/transfers?idempotency_key=tx-2024-0001', headers: { 'content-type': 'application/json' }, body: '{"amount":"150.00","currency":"BRL","pix_key":"+5511999990000"}', ...fixed },
    {
      method: 'POST',
      url: 'http://[::1]:8080/v1/transfers',
      headers: { 'Content-Type': ' application/json ', 'X-Request-Id': 'r-1' },
      body: '{"amount":"10.00"}',
      coverHeaders: ['content-type', 'X-Request-Id'],
      digestAlgorithm: 'sha-512',
      created: 1700000000,
      expires: 1700000300,
      nonce: 'a "quoted" \\ nonce',
    },
  ];
  const cases = (await keys(t)).flatMap((key) =>
    inputs.map((input) => ({ ...input, accessId, keyFile: key.file, ts: signRequest({ ...input, accessId, privateKey: readFileSync(key.file, 'utf8') }) })),
  );
  const result = await run(venvPython, [CHECK_SCRIPT, 'compare', writeJson('cases.json', cases)], { cwd: dir, timeoutMs: 30_000 });
  succeeded(t, result, 'python_sdk_check.py compare');
  const python = JSON.parse(result.stdout) as Record<string, string>[];
  t.equal(python.length, cases.length);
  cases.forEach((c, i) => t.same(python[i], c.ts, `${c.method} ${String(c.url)} with ${c.keyFile.endsWith('.pem') ? 'PKCS#8' : 'OpenSSH'}`));
  t.match(python[0], { signature: /^sig1=:[A-Za-z0-9+/]{86}==:$/ });
});

t.test('requests and httpx reach the upstream through every banking route of a real gateway process', async (t) => {
  const deployment = await sharedRedisDeployment(t, 'python-sdk');
  const gateway = await startGatewayProcess(t, { ...deployment.env, GATEWAY_LOG_LEVEL: 'warn' });
  const admin = { authorization: `Bearer ${deployment.adminToken}`, 'content-type': 'application/json' };
  const plan = { gateway: gateway.publicUrl, keys: [] as { name: string; accessId: string; keyFile: string }[], requests: bankingRequests(new RouteTable(loadPolicyDirectory(`${REPO_ROOT}policies`))) };
  const accountIds = new Map<string, string>();
  for (const key of await keys(t)) {
    const response = await fetch(`${gateway.adminUrl}/admin/v1/service-accounts`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ description: `python ${key.name}`, public_key: key.publicLine, permissions: ['view_balance', 'view_account_details', 'view_transactions', 'list_dict_keys', 'initiate_payment'] }),
      signal: AbortSignal.timeout(10_000),
    });
    t.equal(response.status, 201);
    const account = (await response.json()) as { id: string; access_id: string };
    accountIds.set(key.name, account.id);
    plan.keys.push({ name: key.name, accessId: account.access_id, keyFile: key.file });
  }
  t.equal(plan.requests.length, 7, 'the banking policy has seven routes');
  t.ok(plan.requests.some((r) => r.method === 'POST' && r.body), 'one of them is a POST with a body');

  const result = await run(venvPython, [CHECK_SCRIPT, 'send', writeJson('plan.json', plan)], { cwd: dir, timeoutMs: 60_000 });
  succeeded(t, result, 'python_sdk_check.py send');
  const outcomes = JSON.parse(result.stdout) as { client: string; key: string; method: string; url: string; status: number; body: { method: string; url: string; body: string; headers: Record<string, string> } }[];
  t.equal(outcomes.length, 3 * 2 * 7, 'three clients (requests, httpx, httpx async), two keys, seven routes');
  for (const o of outcomes) {
    const name = `${o.client} ${o.key} ${o.method} ${o.url}`;
    const sent = plan.requests.find((r) => r.method === o.method && r.url === o.url)!;
    // The echo upstream answers 200 with what reached it.
    t.equal(o.status, 200, `${name}: 200`);
    if (o.status !== 200) t.comment(JSON.stringify(o.body));
    t.match(o.body, { method: o.method, url: o.url, body: sent.body ?? '' }, `${name} reached the upstream as sent`);
    t.equal(o.body.headers?.['x-gateway-service-account-id'], accountIds.get(o.key), `${name} as the key's service account`);
  }
  t.equal(deployment.banking.received.length, outcomes.length, 'every request reached the upstream once');

  // A key no account holds: refused with signature_invalid, and the upstream is not contacted.
  writeFileSync(join(dir, 'stranger.pem'), pkcs8Key().pem, { mode: 0o600 });
  const refusedPlan = { ...plan, keys: [{ ...plan.keys[0]!, name: 'stranger', keyFile: join(dir, 'stranger.pem') }], requests: plan.requests.filter((r) => r.method === 'POST') };
  const refused = await run(venvPython, [CHECK_SCRIPT, 'send', writeJson('refused.json', refusedPlan)], { cwd: dir, timeoutMs: 60_000 });
  succeeded(t, refused, 'python_sdk_check.py send (unregistered key)');
  const refusals = JSON.parse(refused.stdout) as { status: number; body: { error: string } }[];
  t.equal(refusals.length, 3);
  for (const r of refusals) t.match(r, { status: 401, body: { error: 'signature_invalid' } });
  t.equal(deployment.banking.received.length, outcomes.length, 'the refused requests did not reach the upstream');
});
