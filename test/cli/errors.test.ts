// gatewayctl's mistakes and failures: one "gatewayctl: ..." line and no stack trace; exit 2 when
// the command line is wrong, 1 when a correct command failed. A private key given where a public
// key is expected is refused before anything is sent; other key forms pass through as they are.
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { runCli, runCliProcess, type CliResult } from '../helpers/cli.js';

/** An admin API stand-in that records what reaches it and answers `reply` (201 {} by default). */
async function recordingAdmin(t: Test, reply: { status: number; body: string } = { status: 201, body: '{}' }) {
  const received: { method: string; url: string; body: string }[] = [];
  const server = createServer((request: IncomingMessage, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({ method: request.method!, url: request.url!, body });
      response.writeHead(reply.status, { 'content-type': 'application/json' }).end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const env = { GATEWAY_ADMIN_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, GATEWAY_ADMIN_TOKEN: 'x'.repeat(40) };
  return { received, env };
}

/** Exactly one line on stderr, starting "gatewayctl: ", and no stack frame anywhere. */
function oneLine(t: Test, result: CliResult, code: number, message: RegExp, name: string): void {
  t.equal(result.code, code, `${name}: exit ${code}`);
  t.match(result.stderr, /^gatewayctl: [^\n]+\n$/, `${name}: one line on stderr`);
  t.match(result.stderr, message, name);
  t.notMatch(result.stderr + result.stdout, /^\s+at /m, `${name}: no stack trace`);
}

const create = (keyArgs: string[]) => ['service-accounts', 'create', '--description', 'payroll', ...keyArgs, '--permissions', 'view_balance', '--json'];

// One usage mistake and one failure run as a separate process: the exit code the shell sees is the
// one main.ts sets, and nothing else (a stack trace from the process itself, say) reaches stderr.
t.test('usage mistakes exit 2 with one line naming the fix', async (t) => {
  oneLine(t, await runCliProcess(['frobnicate']), 2, /Unknown command 'frobnicate' \(see 'gatewayctl --help'\)/, 'unknown command');
  oneLine(t, await runCli(['clients', 'list', '--frobnicate']), 2, /Unknown option '--frobnicate' \(see 'gatewayctl clients list --help'\)/, 'unknown option');
  oneLine(t, await runCli(['clients', 'create', '--scopes', 'sales']), 2, /Required option '--name <NAME>' not specified/, 'missing required option');
  oneLine(t, await runCli(['clients', 'delete']), 2, /Missing required argument 'CLIENT_ID'/, 'missing argument');
  oneLine(t, await runCli(['service-accounts', 'show', 'a', 'b']), 2, /Too many arguments/, 'extra argument');
  oneLine(t, await runCli(['keygen', '--out']), 2, /Option '-o, --out <FILE>' argument missing/, 'option without its value');
  oneLine(t, await runCli(['request', '/v1/balance', '--access-id', 'a', '--key', 'k']), 2, /"\/v1\/balance" is not an absolute URL/, 'relative URL');
  oneLine(t, await runCli(['request', 'http://127.0.0.1:1/v1/balance', '--key', 'k']), 2, /--access-id \(or GATEWAY_ACCESS_ID\) is required/, 'no access id');
  oneLine(t, await runCli(create([])), 2, /--public-key "ssh-ed25519 \.\.\." or --public-key-file FILE\.pub is required/, 'no public key');

  const group = await runCli(['service-accounts']);
  t.equal(group.code, 2, 'a group without its command');
  t.match(group.stderr, /Usage: gatewayctl service-accounts/);
  t.match(group.stderr, /gatewayctl: service-accounts needs one of its commands: create, list, find, show, delete, update, keys\.\n$/);
});

t.test('failures exit 1 with one line, never a stack trace', async (t) => {
  const { env } = await recordingAdmin(t);
  oneLine(
    t,
    await runCli(create(['--public-key-file', '/nonexistent/key.pub']), env),
    1,
    /cannot read --public-key-file \/nonexistent\/key\.pub: no such file/,
    'missing public key file',
  );
  oneLine(
    t,
    await runCliProcess(['request', 'http://127.0.0.1:1/v1/balance', '--access-id', 'a', '--key', '/nonexistent/key.pem']),
    1,
    /cannot read the key file \/nonexistent\/key\.pem: no such file/,
    'missing private key file',
  );
  oneLine(
    t,
    await runCli(['request', 'http://127.0.0.1:1/v1/transfers', '--data-file', '/nonexistent/body.json', '--access-id', 'a', '--key', 'k']),
    1,
    /cannot read --data-file \/nonexistent\/body\.json: no such file/,
    'missing body file',
  );
  const dir = mkdtempSync(join(tmpdir(), 'cli-errors-'));
  oneLine(t, await runCli(['keygen', '--out', join(dir, 'missing-dir', 'key.pem')]), 1, /cannot write .*key\.pem: ENOENT/, 'unwritable key file');

  const proxy = await recordingAdmin(t, { status: 502, body: '<html>Bad gateway</html>' });
  oneLine(t, await runCli(['clients', 'list'], proxy.env), 1, /502: <html>Bad gateway<\/html>/, 'a non-JSON error page');
});

t.test('a private key where a public key is expected is refused before anything is sent', async (t) => {
  const { received, env } = await recordingAdmin(t);
  const dir = mkdtempSync(join(tmpdir(), 'cli-private-'));
  t.equal((await runCli(['keygen', '--out', join(dir, 'pkcs8.pem')])).code, 0);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'id_ed25519')]);
  const { privateKey } = generateKeyPairSync('ed25519');
  writeFileSync(join(dir, 'private.jwk'), JSON.stringify(privateKey.export({ format: 'jwk' })));
  writeFileSync(join(dir, 'private.jwks'), JSON.stringify({ keys: [privateKey.export({ format: 'jwk' })] }));
  writeFileSync(join(dir, 'rsa.pem'), generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs1', format: 'pem' }));

  for (const file of ['pkcs8.pem', 'id_ed25519', 'private.jwk', 'private.jwks', 'rsa.pem']) {
    oneLine(t, await runCli(create(['--public-key-file', join(dir, file)]), env), 2, /is a private key; nothing was sent/, `${file} as --public-key-file`);
  }
  oneLine(
    t,
    await runCli(create(['--public-key', readFileSync(join(dir, 'pkcs8.pem'), 'utf8')]), env),
    2,
    /--public-key holds a private key; nothing was sent/,
    'a PEM private key as --public-key',
  );
  t.same(received, [], 'the admin API never heard of any of them');
});

t.test('public keys are sent as given: the ssh line trimmed, other forms unchanged', async (t) => {
  const { received, env } = await recordingAdmin(t);
  const dir = mkdtempSync(join(tmpdir(), 'cli-public-'));
  const { publicKey } = generateKeyPairSync('ed25519');
  const forms = {
    'key.pub': 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOfzHz8EP/d3Jc0s0rBNb0vQEvbF2r+z4nR0Xhxh2Ff1 me@laptop\n',
    'spki.pem': publicKey.export({ type: 'spki', format: 'pem' }) as string,
    'public.jwk': `${JSON.stringify(publicKey.export({ format: 'jwk' }))}\n`,
  };
  for (const [file, text] of Object.entries(forms)) {
    writeFileSync(join(dir, file), text);
    const result = await runCli(create(['--public-key-file', join(dir, file)]), env);
    t.equal(result.code, 0, `${file}: ${result.stderr}`);
  }
  t.same(
    received.map((r) => (JSON.parse(r.body) as { public_key: string }).public_key),
    [forms['key.pub'].trim(), forms['spki.pem'], forms['public.jwk']],
  );
  oneLine(
    t,
    await runCli(create(['--public-key', 'ssh-ed25519 AAAA', '--public-key-file', join(dir, 'key.pub')]), env),
    2,
    /give --public-key or --public-key-file, not both/,
    'both',
  );
});
