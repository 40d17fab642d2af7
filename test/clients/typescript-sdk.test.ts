// The TypeScript client package as a user gets it: `npm pack` of clients/typescript, installed from
// the tarball into an empty project, then used from that project (plain Node, no repository code)
// against a listening gateway, through every banking route, with OpenSSH and PKCS#8 keys.
import { execFile } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import { publicKeyPem, rawPublicKey, sshPublicKeyLine } from '../../clients/typescript/src/index.js';
import { bankingRequests } from '../helpers/banking-routes.js';
import { REPO_ROOT, startTestGateway } from '../helpers/gateway.js';
import { listen } from '../helpers/http.js';
import { openSshPrivateKey } from '../helpers/openssh-key.js';
import { adminInject, ALL_PERMISSIONS, type CreatedServiceAccount } from '../helpers/signing.js';

const PACKAGE_DIR = join(REPO_ROOT, 'clients/typescript');
const PACKAGE_NAME = '@access-gateway/signing';
const CLIENTS = ['signRequest + fetch', 'signedFetch', 'undici.request + signingInterceptor', 'undici.fetch + signingInterceptor'];

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command with a plain environment (no npm_config_* of an enclosing `npm test`). */
function run(command: string, args: string[], cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env: { PATH: process.env.PATH, HOME: process.env.HOME }, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

async function succeed(command: string, args: string[], cwd: string): Promise<string> {
  const result = await run(command, args, cwd);
  if (result.code !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${result.code}:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

function has(command: string): boolean {
  return (process.env.PATH ?? '').split(':').some((dir) => existsSync(join(dir, command)));
}

const work = mkdtempSync(join(tmpdir(), 'ts-sdk-'));
const project = join(work, 'project');
let packedFiles: string[] = [];

t.before(async () => {
  const packed = JSON.parse(await succeed('npm', ['pack', '--json', '--pack-destination', work], PACKAGE_DIR)) as Array<{
    filename: string;
    files: Array<{ path: string }>;
  }>;
  packedFiles = packed[0]!.files.map((f) => f.path);
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'sdk-user', version: '1.0.0', private: true, type: 'module' }));
  await succeed('npm', ['install', '--no-audit', '--no-fund', '--offline', join(work, packed[0]!.filename)], project);
});
t.teardown(() => rmSync(work, { recursive: true, force: true }));

t.test('the tarball holds the compiled package and nothing else', async (t) => {
  t.ok(packedFiles.includes('dist/index.js') && packedFiles.includes('dist/index.d.ts'), 'dist is built and packed');
  t.same(packedFiles.filter((f) => !/^dist\/[\w.-]+\.(js|d\.ts)$/.test(f)).sort(), ['README.md', 'package.json'], 'no sources, scripts or tests');
});

t.test('the package has no runtime dependencies', async (t) => {
  const installed = join(project, 'node_modules', PACKAGE_NAME);
  const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as Record<string, unknown>;
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies', 'bundleDependencies', 'bundledDependencies']) {
    t.same(Object.keys((manifest[field] as object | undefined) ?? {}), [], `no ${field}`);
  }
  t.same(
    readdirSync(join(project, 'node_modules')).filter((d) => !d.startsWith('.')),
    ['@access-gateway'],
    'installing it installed nothing else',
  );
  // And the code itself reaches only node: built-ins and its own files.
  for (const file of readdirSync(join(installed, 'dist')).filter((f) => f.endsWith('.js'))) {
    const source = readFileSync(join(installed, 'dist', file), 'utf8');
    const specifiers = [...source.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'([^']+)'|import\('([^']+)'\)|require\('([^']+)'\)/g)].map(
      (m) => m[1] ?? m[2] ?? m[3]!,
    );
    const foreign = specifiers.filter((s) => !s.startsWith('node:') && !s.startsWith('./'));
    t.same(foreign, [], `${file} imports only node: built-ins and its own files`);
  }
  const clientSource = readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8');
  t.notMatch(clientSource, /sodium|structured-headers|undici/, "the manifest names none of the gateway's dependencies");
});

/** The fenced blocks of one language in a section of SIGNING.md ("1." is "## 1. ..." up to the next "## "). */
function docBlocks(section: string, language: string): string[] {
  const doc = readFileSync(join(REPO_ROOT, 'SIGNING.md'), 'utf8');
  const from = doc.indexOf(`\n## ${section} `);
  const text = doc.slice(from, doc.indexOf('\n## ', from + 1));
  return [...text.matchAll(new RegExp(`\`\`\`${language}\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1]!);
}

t.test("its types serve a strict TypeScript project, and SIGNING.md's snippets compile as written", async (t) => {
  writeFileSync(
    join(project, 'check.ts'),
    [
      "import { generateKeyPairSync } from 'node:crypto';",
      "import { loadPrivateKey, requestSignatureBase, signedFetch, signingInterceptor, signRequest, signRequestWithBase, type DispatchInterceptor } from '@access-gateway/signing';",
      "const privateKey = loadPrivateKey(generateKeyPairSync('ed25519').privateKey);",
      "const headers: Record<string, string> = signRequest({ method: 'GET', url: 'https://gw.example/v1/balance', accessId: 'id', privateKey });",
      "const { base } = signRequestWithBase({ method: 'POST', url: new URL('https://gw.example/v1/transfers'), body: new Uint8Array(2), accessId: 'id', privateKey: Buffer.from('') });",
      "const same: boolean = base === requestSignatureBase({ method: 'POST', url: 'https://gw.example/v1/transfers', accessId: 'id', created: 1, nonce: 'n' });",
      "const interceptor: DispatchInterceptor = signingInterceptor({ accessId: 'id', privateKey });",
      "const response: Promise<Response> = signedFetch('https://gw.example/v1/balance', { accessId: 'id', privateKey, signal: AbortSignal.timeout(1000) });",
      'export { headers, same, interceptor, response };',
    ].join('\n'),
  );
  // Section 5's blocks in order, as one module: each uses what the ones before it declared.
  const blocks = docBlocks('5.', 'ts');
  t.ok(blocks.length >= 3, 'the sign, undici and 401 snippets');
  const lines = blocks.join('\n').split('\n');
  writeFileSync(join(project, 'docs.ts'), [...lines.filter((l) => l.startsWith('import ')), ...lines.filter((l) => !l.startsWith('import '))].join('\n'));
  const tsconfig = {
    compilerOptions: {
      strict: true,
      noUncheckedIndexedAccess: true,
      noEmit: true,
      target: 'es2022',
      module: 'nodenext',
      moduleResolution: 'nodenext',
      lib: ['es2023'],
      types: ['node'],
      typeRoots: [join(REPO_ROOT, 'node_modules/@types')],
      // undici for the interceptor snippet: the repository's (the package itself never imports it).
      paths: { undici: [join(REPO_ROOT, 'node_modules/undici/types/index.d.ts')] },
    },
    files: ['check.ts', 'docs.ts'],
  };
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(tsconfig));
  const result = await run(process.execPath, [join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], project);
  t.equal(result.code, 0, `tsc: ${result.stdout}${result.stderr}`);
});

t.test("SIGNING.md's key commands, run as written", { skip: has('openssl') && has('ssh-keygen') ? false : 'needs openssl and ssh-keygen' }, async (t) => {
  // Section 1's blocks after the gatewayctl one: openssl and ssh-keygen, then node with the installed package.
  const [, keyCommands, nodeCommands] = docBlocks('1.', 'sh');
  const dir = join(project, 'keys');
  mkdirSync(dir);
  symlinkSync(join(project, 'node_modules'), join(dir, 'node_modules'));
  await succeed('bash', ['-euc', keyCommands!], dir);
  const printed = await succeed('bash', ['-euc', nodeCommands!], dir);
  const read = (file: string) => readFileSync(join(dir, file));

  const line = sshPublicKeyLine(read('payroll.pem'), 'payroll@example');
  t.equal(read('payroll.pem.pub').toString(), `${line}\n`, "the printf + openssl line is the key's ssh-ed25519 line");
  t.equal(read('payroll.pub.pem').toString(), publicKeyPem(read('payroll.pem')), 'openssl pkey -pubout: its SPKI PEM');
  t.equal(printed, `${line}\n`, 'the node command prints the same line');
  t.equal(read('payroll.pub').toString(), `${sshPublicKeyLine(read('payroll'), 'payroll@example')}\n`, "ssh-keygen's .pub line is the OpenSSH file's key");
  const converted = read('payroll-pkcs8.pem').toString();
  t.match(converted, /^-----BEGIN PRIVATE KEY-----\n/, 'the OpenSSH key converted to PKCS#8 PEM');
  t.same(rawPublicKey(converted), rawPublicKey(read('payroll')), 'the same key');
  await succeed('openssl', ['pkey', '-in', 'payroll-pkcs8.pem', '-noout'], dir);
  t.pass('openssl reads the converted key');
});

/** One key file per form the package reads: ssh-keygen's OpenSSH file and openssl's PKCS#8 PEM. */
async function keyFiles(dir: string): Promise<Array<{ name: string; file: string; publicLine: string; asBytes: boolean }>> {
  const openssh = join(dir, 'id_ed25519');
  if (has('ssh-keygen')) await succeed('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'sdk@example', '-f', openssh], dir);
  else writeFileSync(openssh, openSshPrivateKey(randomBytes(32)), { mode: 0o600 });
  const pkcs8 = join(dir, 'key.pem');
  if (has('openssl')) await succeed('openssl', ['genpkey', '-algorithm', 'ed25519', '-out', pkcs8], dir);
  else writeFileSync(pkcs8, generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 });
  return [
    {
      name: 'OpenSSH key file',
      file: openssh,
      publicLine: existsSync(`${openssh}.pub`) ? readFileSync(`${openssh}.pub`, 'utf8') : sshPublicKeyLine(readFileSync(openssh)),
      asBytes: true,
    },
    { name: 'PKCS#8 PEM', file: pkcs8, publicLine: sshPublicKeyLine(readFileSync(pkcs8, 'utf8')), asBytes: false },
  ];
}

t.test('signs every banking route from the installed package, with OpenSSH and PKCS#8 keys', async (t) => {
  const tg = await startTestGateway(t);
  const { publicUrl } = await listen(tg);
  const accounts = [];
  for (const key of await keyFiles(work)) {
    const created = await adminInject(tg, {
      method: 'POST',
      url: '/admin/v1/service-accounts',
      payload: { description: key.name, public_key: key.publicLine.trim(), permissions: ALL_PERMISSIONS },
    });
    t.equal(created.statusCode, 201, created.body);
    const account = created.json<CreatedServiceAccount>();
    accounts.push({ name: key.name, id: account.id, accessId: account.access_id, keyFile: key.file, asBytes: key.asBytes });
  }
  const requests = bankingRequests(tg.gateway.policy.current);
  t.ok(
    requests.some((r) => r.method === 'POST' && r.body),
    'the routes include a POST with a body',
  );
  const job = { gateway: publicUrl, undici: pathToFileURL(join(REPO_ROOT, 'node_modules/undici/index.js')).href, accounts, clients: CLIENTS, requests };
  writeFileSync(join(project, 'job.json'), JSON.stringify(job));
  copyFileSync(join(REPO_ROOT, 'test/clients/typescript-sdk/client.mjs'), join(project, 'client.mjs'));

  const output = await succeed(process.execPath, ['client.mjs', 'job.json'], project);
  const results = output
    .trim()
    .split('\n')
    .map(
      (line) =>
        JSON.parse(line) as {
          account: string;
          client: string;
          method: string;
          url: string;
          status: number;
          echoed: { method: string; url: string; body: string; headers: Record<string, string> };
        },
    );
  t.equal(results.length, accounts.length * CLIENTS.length * requests.length, 'one response per account, client and route');
  for (const result of results) {
    const request = requests.find((r) => r.method === result.method && r.url === result.url)!;
    const account = accounts.find((a) => a.name === result.account)!;
    const what = `${result.account}, ${result.client}: ${result.method} ${result.url}`;
    t.equal(result.status, 200, what);
    t.same([result.echoed.method, result.echoed.url, result.echoed.body], [request.method, request.url, request.body ?? ''], `${what}: forwarded as sent`);
    t.equal(result.echoed.headers['x-gateway-service-account-id'], account.id, `${what}: as its service account`);
  }
  t.equal(tg.upstreams.banking.received.length, results.length, 'the upstream received every request');
});
