// The Python client package (clients/python) installed as its README says, offline, into a fresh
// virtual environment of Debian's python3, then used from that environment: its own unit tests, the
// same headers as the TypeScript signer for the same inputs, and requests + httpx (sync and async)
// through every banking route of a real gateway process, with an OpenSSH and a PKCS#8 key; and what
// each client does when a redirecting server answers (redirect-servers.ts).
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { loadPolicies } from '../../gateway/policy/policy-loader.js';
import { RouteTable } from '../../gateway/policy/route-table.js';
import { redirectPolicy, redirectTarget } from '../../clients/typescript/src/redirects.js';
import { signRequest, type SignRequestOptions } from '../../gateway/signing/index.js';
import { bankingRequests } from '../helpers/banking-routes.js';
import { REPO_ROOT } from '../helpers/gateway.js';
import { startGatewayProcess } from '../helpers/gateway-process.js';
import { sharedRedisDeployment } from '../helpers/process-ops.js';
import { signingHeadersIn, startLanding, startRedirector, verifyReceived, type Received } from './redirect-servers.js';

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
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PIP_CONFIG_FILE: '/dev/null',
    PIP_NO_INDEX: '1',
    PIP_DISABLE_PIP_VERSION_CHECK: '1',
    PIP_NO_INPUT: '1',
    PYTHONDONTWRITEBYTECODE: '1',
  };
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd: options.cwd, env, timeout: options.timeoutMs, killSignal: 'SIGKILL', maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) || 1 : 0, stdout, stderr });
      },
    );
  });
}

const dir = mkdtempSync(join(tmpdir(), 'python-sdk-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
// A copy of the package, so the in-tree build (build/, *.egg-info) never touches the working tree.
const checkout = join(dir, 'repo');
cpSync(`${REPO_ROOT}clients/python`, join(checkout, 'clients/python'), {
  recursive: true,
  filter: (src) => !/(^|\/)(build|[^/]*\.egg-info|__pycache__)$/.test(src),
});
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

  const where = await run(venvPython, ['-c', 'import access_gateway_signing, cryptography; print(access_gateway_signing.__file__)'], {
    cwd: dir,
    timeoutMs: 20_000,
  });
  succeeded(t, where, 'import access_gateway_signing');
  t.ok(where.stdout.startsWith(join(dir, 'venv/lib/')), `imported from the virtual environment: ${where.stdout}`);

  // requests and httpx are optional: without them the package imports, and only the auth class fails.
  const withoutClients = await run(
    venvPython,
    [
      '-c',
      "import sys; sys.modules['requests'] = sys.modules['httpx'] = None\nimport access_gateway_signing as s\ntry:\n    s.RequestsAuth\nexcept ImportError:\n    print('optional')",
    ],
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
    {
      method: 'POST',
      url: 'https://bank.example.com/v1/transfers?idempotency_key=tx-2024-0001',
      headers: { 'content-type': 'application/json' },
      body: '{"amount":"150.00","currency":"BRL","pix_key":"+5511999990000"}',
      ...fixed,
    },
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
  const plan = {
    gateway: gateway.publicUrl,
    keys: [] as { name: string; accessId: string; keyFile: string }[],
    requests: bankingRequests(new RouteTable(loadPolicies(`${REPO_ROOT}policies`))),
  };
  const accountIds = new Map<string, string>();
  for (const key of await keys(t)) {
    const response = await fetch(`${gateway.adminUrl}/admin/v1/service-accounts`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({
        description: `python ${key.name}`,
        public_key: key.publicLine,
        permissions: ['view_balance', 'view_account_details', 'view_transactions', 'list_dict_keys', 'initiate_payment'],
      }),
      signal: AbortSignal.timeout(10_000),
    });
    t.equal(response.status, 201);
    const account = (await response.json()) as { id: string; access_id: string };
    accountIds.set(key.name, account.id);
    plan.keys.push({ name: key.name, accessId: account.access_id, keyFile: key.file });
  }
  t.equal(plan.requests.length, 7, 'the banking policy has seven routes');
  t.ok(
    plan.requests.some((r) => r.method === 'POST' && r.body),
    'one of them is a POST with a body',
  );

  const result = await run(venvPython, [CHECK_SCRIPT, 'send', writeJson('plan.json', plan)], { cwd: dir, timeoutMs: 60_000 });
  succeeded(t, result, 'python_sdk_check.py send');
  const outcomes = JSON.parse(result.stdout) as {
    client: string;
    key: string;
    method: string;
    url: string;
    status: number;
    body: { method: string; url: string; body: string; headers: Record<string, string> };
  }[];
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
  const refusedPlan = {
    ...plan,
    keys: [{ ...plan.keys[0]!, name: 'stranger', keyFile: join(dir, 'stranger.pem') }],
    requests: plan.requests.filter((r) => r.method === 'POST'),
  };
  const refused = await run(venvPython, [CHECK_SCRIPT, 'send', writeJson('refused.json', refusedPlan)], { cwd: dir, timeoutMs: 60_000 });
  succeeded(t, refused, 'python_sdk_check.py send (unregistered key)');
  const refusals = JSON.parse(refused.stdout) as { status: number; body: { error: string } }[];
  t.equal(refusals.length, 3);
  for (const r of refusals) t.match(r, { status: 401, body: { error: 'signature_invalid' } });
  t.equal(deployment.banking.received.length, outcomes.length, 'the refused requests did not reach the upstream');
});

interface RedirectCase {
  name: string;
  client: string;
  follow: 'same-origin' | 'any-origin' | null;
  /** httpx's own follow_redirects. */
  clientFollows: boolean;
  method: string;
  url: string;
  body?: string;
  /** What the client reports: the refusal, or the answer it ended at. */
  expected:
    | { refused: { reason: string; status_code: number; origin: string; location_origin: string; response_status: number | null } }
    | { landed: string; method: string; history: number[] };
  /** The server the hop should reach, when it is followed. */
  hopTo?: 'landing' | 'redirector';
}

interface RedirectOutcome {
  name: string;
  status?: number;
  body?: unknown;
  history?: number[];
  refused?: { reason: string; message: string; repr: string };
}

t.test('redirects: refused with RedirectRefusedError by default, nothing sent on; when opted in, each hop signed for its URL', async (t) => {
  const accessId = '3f2b9c1e-7a4d-4e8f-9b6a-2c1d0e5f4a3b';
  const body = '{"amount":"150.00"}';
  const { pem } = pkcs8Key();
  const keyFile = join(dir, 'redirects.pem');
  writeFileSync(keyFile, pem, { mode: 0o600 });
  const landing = await startLanding(t);
  const redirector = await startRedirector(t, landing);
  const refusal = (reason: string, status: number, locationOrigin: string, responseStatus: number | null) => ({
    refused: { reason, status_code: status, origin: redirector.origin, location_origin: locationOrigin, response_status: responseStatus },
  });

  const cases: RedirectCase[] = [];
  const add = (c: Omit<RedirectCase, 'url' | 'method' | 'body'> & { path: string; method?: string }) => {
    const { path, method = 'POST', ...rest } = c;
    const id = `c${cases.length}`;
    cases.push({ ...rest, method, url: `${redirector.origin}${path}?case=${id}`, ...(method === 'POST' ? { body } : {}) });
  };
  for (const client of ['requests', 'httpx', 'httpx-async']) {
    const base = { client, clientFollows: false };
    for (const status of [307, 308, 303]) {
      add({
        ...base,
        name: `${client}: ${status}, by default`,
        follow: null,
        path: `/${status}/away`,
        expected: refusal('not_followed', status, landing.origin, status),
      });
      const id = `c${cases.length}`;
      add({
        ...base,
        name: `${client}: ${status}, any-origin`,
        follow: 'any-origin',
        path: `/${status}/away`,
        hopTo: 'landing',
        expected: { landed: `/landing/${status}?from=away&case=${id}`, method: status === 303 ? 'GET' : 'POST', history: [status] },
      });
    }
    const within = `c${cases.length}`;
    add({
      ...base,
      name: `${client}: same-origin, within`,
      follow: 'same-origin',
      path: '/307/here',
      hopTo: 'redirector',
      expected: { landed: `/landing/307?from=here&case=${within}`, method: 'POST', history: [307] },
    });
    add({
      ...base,
      name: `${client}: same-origin, to another origin`,
      follow: 'same-origin',
      path: '/308/away',
      expected: refusal('cross_origin', 308, landing.origin, 308),
    });
    add({
      ...base,
      name: `${client}: a redirect loop`,
      follow: 'same-origin',
      path: '/loop',
      method: 'GET',
      expected: refusal('too_many_redirects', 307, redirector.origin, 307),
    });
    if (client === 'requests') continue;
    for (const status of [307, 308, 303]) {
      add({
        ...base,
        clientFollows: true,
        name: `${client}: ${status}, httpx's follow_redirects=True`,
        follow: null,
        path: `/${status}/away`,
        expected: refusal('client_follows', status, landing.origin, null),
      });
    }
    add({
      ...base,
      clientFollows: true,
      name: `${client}: 307, httpx's follow_redirects=True and any-origin`,
      follow: 'any-origin',
      path: '/307/away',
      expected: refusal('client_follows', 307, landing.origin, null),
    });
  }

  const result = await run(venvPython, [CHECK_SCRIPT, 'redirects', writeJson('redirects.json', { accessId, keyFile, cases })], { cwd: dir, timeoutMs: 60_000 });
  succeeded(t, result, 'python_sdk_check.py redirects');
  const outcomes = JSON.parse(result.stdout) as RedirectOutcome[];
  t.equal(outcomes.length, cases.length, 'one outcome per case');
  const caseOf = (r: Received) => new URLSearchParams(r.url.split('?')[1]).get('case');
  /** The nonce of a request whose signature verifies for the URL it reached; a failure is reported, and the other cases still checked. */
  const verifiedNonce = (received: Received | undefined, what: string): string | undefined => {
    try {
      return verifyReceived(received!, pem, accessId).nonce;
    } catch (error) {
      t.fail(`${what}: ${(error as Error).message}`);
      return undefined;
    }
  };
  const firstRequest = (id: string) => redirector.received.find((r) => caseOf(r) === id && !r.url.startsWith('/landing/'))!;
  cases.forEach((c, i) => {
    const outcome = outcomes[i]!;
    const id = `c${i}`;
    if ('refused' in c.expected) {
      t.match(outcome, { name: c.name, refused: c.expected.refused }, `${c.name}: RedirectRefusedError, ${c.expected.refused.reason}`);
      const { status_code: status, location_origin: to } = c.expected.refused;
      t.match(outcome.refused?.message, `answered ${status} with a redirect`, `${c.name}: the message names the status`);
      t.match(outcome.refused?.message, to, `${c.name}: and the Location's origin`);
      const signature = firstRequest(id)?.rawHeaders.find((_, j, raw) => raw[j - 1]?.toLowerCase() === 'signature');
      const text = `${outcome.refused?.message} ${outcome.refused?.repr}`;
      t.ok(!text.includes(accessId) && signature !== undefined && !text.includes(signature.slice(6, 40)), `${c.name}: neither the Access ID nor the signature`);
    } else {
      t.match(
        outcome,
        { name: c.name, status: 200, body: { landed: c.expected.landed, method: c.expected.method }, history: c.expected.history },
        `${c.name}: followed to the Location`,
      );
    }
    if (c.hopTo === undefined) {
      t.same(
        landing.received.filter((r) => caseOf(r) === id),
        [],
        `${c.name}: nothing reached the other origin`,
      );
      if (!c.url.includes('/loop')) t.equal(redirector.received.filter((r) => caseOf(r) === id).length, 1, `${c.name}: the request was sent once`);
      return;
    }
    const hop = (c.hopTo === 'landing' ? landing : redirector).received.find((r) => r.url.startsWith('/landing/') && caseOf(r) === id);
    const status = Number(/^\/(\d+)\//.exec(new URL(c.url).pathname)![1]);
    t.match(
      hop,
      status === 303 ? { method: 'GET', body: '' } : { method: 'POST', body },
      `${c.name}: ${status === 303 ? 'a GET without a body' : 'the method and the body kept'}`,
    );
    if (status === 303) t.notOk(hop && signingHeadersIn(hop).some((h) => h.toLowerCase() === 'content-digest'), `${c.name}: no Content-Digest`);
    const hopNonce = verifiedNonce(hop, `${c.name}: the hop`);
    const firstNonce = verifiedNonce(firstRequest(id), `${c.name}: the first request`);
    t.ok(hopNonce !== undefined && firstNonce !== undefined && hopNonce !== firstNonce, `${c.name}: the hop verifies for its URL, with a fresh nonce`);
  });
  t.equal(landing.received.length, cases.filter((c) => c.hopTo === 'landing').length, 'the other origin received only the hops opted into');
  t.equal(redirector.received.filter((r) => r.url.startsWith('/loop')).length, 3 * 6, 'each redirect loop stopped after 5 hops');
});

t.test('redirect_target on any Location: refusals name origins only, and well-formed ones get the TypeScript rules', async (t) => {
  const secret = 'S3cr3tT0ken';
  const from = `http://127.0.0.1:8080/v1/${secret}?key=${secret}`;
  const host = fc.constantFrom('127.0.0.1:8080', '127.0.0.1:9090', 'bank.example', 'BANK.Example:443', '[::1]:8080', 'xn--bcher-kva.example');
  // Segments are never empty: "///x" is a host to WHATWG URL and a path to urljoin (each stays safe: see the first checks).
  const path = fc.stringMatching(/^([a-z0-9._~-]{1,8}(\/[a-z0-9._~-]{1,8}){0,2})?$/);
  const tail = fc.constantFrom('', `?t=${secret}`, `#${secret}`, `?t=${secret}#${secret}`);
  // Absolute, scheme-relative, absolute-path and relative references, which WHATWG URL and urljoin read alike.
  const wellFormed = fc.oneof(
    fc.tuple(fc.constantFrom('http', 'https', 'HTTPS', 'ftp'), host, path, tail).map(([scheme, h, p, q]) => `${scheme}://${h}/${p}${q}`),
    fc.tuple(host, path, tail).map(([h, p, q]) => `//${h}/${p}${q}`),
    fc.tuple(path, tail).map(([p, q]) => `/${p}${q}`),
    fc.tuple(path, tail).map(([p, q]) => `${p}${q}`),
  );
  const anything = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.string({ unit: 'grapheme', maxLength: 20 }),
    fc.string({ unit: fc.constantFrom('h', 't', 'p', ':', '/', '\\', '[', ']', '@', '%', '?', '#', ' ', '\t', '.', secret), maxLength: 12 }),
    // A malformed authority: brackets, ports, userinfo.
    fc
      .tuple(fc.constantFrom('http:', 'https:', ''), fc.string({ unit: fc.constantFrom('[', ']', ':', '@', 'a', '1', '%', secret), maxLength: 8 }))
      .map(([scheme, authority]) => `${scheme}//${authority}/x`),
  );
  const seed = Number(process.env.FC_SEED ?? Math.floor(Math.random() * 2 ** 31));
  const cases = fc.sample(
    fc
      .record({
        wellFormed: fc.boolean(),
        location: fc.string(),
        status: fc.constantFrom(301, 302, 303, 307, 308),
        follow: fc.constantFrom(null, 'same-origin', 'any-origin'),
        max: fc.integer({ min: 0, max: 6 }),
        hops: fc.integer({ min: 0, max: 6 }),
      })
      .chain((c) => (c.wellFormed ? wellFormed : anything).map((location) => ({ ...c, location, from }))),
    { numRuns: 600, seed },
  );
  const result = await run(venvPython, [CHECK_SCRIPT, 'targets', writeJson('targets.json', cases)], { cwd: dir, timeoutMs: 30_000 });
  succeeded(t, result, 'python_sdk_check.py targets');
  const outcomes = JSON.parse(result.stdout) as {
    target?: string;
    origin?: string;
    refused?: { reason: string; status_code: number; location_origin: string | null; message: string; repr: string };
    unexpected?: string;
  }[];
  t.equal(outcomes.length, cases.length);
  const failures: string[] = [];
  cases.forEach((c, i) => {
    const python = outcomes[i]!;
    const what = `${JSON.stringify(c.location)} (${c.status}, ${c.follow}, ${c.hops}/${c.max})`;
    if (python.unexpected) return void failures.push(`${what}: ${python.unexpected}`);
    const { refused } = python;
    // The Location's origin may hold anything a host can; the rest of the message must not show the Location.
    if (refused && `${refused.message} ${refused.repr}`.replaceAll(refused.location_origin ?? '\0', '').includes(secret))
      failures.push(`${what}: the refusal shows more than origins: ${refused.message}`);
    if (refused && refused.status_code !== c.status) failures.push(`${what}: the refusal names status ${refused.status_code}`);
    if (!c.wellFormed) return;
    const ts = redirectTarget(new URL(from), c.status, c.location, redirectPolicy(c.follow ?? undefined, c.max), c.hops);
    const expected = ts instanceof URL ? { origin: ts.origin } : { reason: ts.reason, location_origin: ts.locationOrigin };
    const got = python.refused ? { reason: python.refused.reason, location_origin: python.refused.location_origin } : { origin: python.origin };
    if (JSON.stringify(got) !== JSON.stringify(expected)) failures.push(`${what}: Python ${JSON.stringify(got)}, TypeScript ${JSON.stringify(expected)}`);
  });
  t.same(
    failures,
    [],
    `${cases.length} Locations (FC_SEED=${seed} replays them), ${cases.filter((c) => c.wellFormed).length} compared with the TypeScript package`,
  );
});
