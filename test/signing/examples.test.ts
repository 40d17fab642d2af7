// The two examples of SIGNING.md, run as written against a listening gateway: the openssl + curl
// script and the Python (cryptography) script, through every banking route.
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { generateSigningKey } from '../../gateway/signing/index.js';
import { bankingRequests } from '../helpers/banking-routes.js';
import { REPO_ROOT, startTestGateway } from '../helpers/gateway.js';
import { listen } from '../helpers/http.js';
import { adminInject, ALL_PERMISSIONS, type CreatedServiceAccount } from '../helpers/signing.js';

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: REPO_ROOT, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

const EXAMPLES = [
  ['shell (openssl + curl)', 'bash', 'examples/sign-request.sh'],
  ['Python (cryptography)', 'python3', 'examples/sign_request.py'],
] as const;

for (const [name, interpreter, script] of EXAMPLES) {
  t.test(`the ${name} example reaches the upstream through every banking route`, async (t) => {
    const tg = await startTestGateway(t);
    const { publicUrl: gatewayUrl } = await listen(tg);
    const dir = mkdtempSync(join(tmpdir(), 'example-'));
    const key = generateSigningKey('example');
    writeFileSync(join(dir, 'key.pem'), key.privateKeyPem, { mode: 0o600 });
    const created = await adminInject(tg, {
      method: 'POST',
      url: '/admin/v1/service-accounts',
      payload: { description: name, public_key: key.publicKeyLine, permissions: ALL_PERMISSIONS },
    });
    const account = created.json<CreatedServiceAccount>();
    const env = { ACCESS_ID: account.access_id, PRIVATE_KEY: join(dir, 'key.pem') };

    for (const request of bankingRequests(tg.gateway.policy.current)) {
      const result = await run(interpreter, [script, request.method, `${gatewayUrl}${request.url}`, ...(request.body ? [request.body] : [])], env);
      t.equal(result.code, 0, `${request.method} ${request.url}: ${result.stdout} ${result.stderr}`);
      const echoed = JSON.parse(result.stdout);
      t.equal(echoed.method, request.method);
      t.equal(echoed.url, request.url);
      t.equal(echoed.body, request.body ?? '');
      t.equal(echoed.headers['x-gateway-service-account-id'], account.id);
    }
    t.equal(tg.upstreams.banking.received.length, 7);

    // Signed with a key the account does not hold: refused, and the script says so.
    const other = generateSigningKey();
    writeFileSync(join(dir, 'other.pem'), other.privateKeyPem, { mode: 0o600 });
    const refused = await run(interpreter, [script, 'GET', `${gatewayUrl}/v1/balance`], { ...env, PRIVATE_KEY: join(dir, 'other.pem') });
    t.not(refused.code, 0);
    t.equal(JSON.parse(refused.stdout).error, 'signature_invalid');
    t.equal(tg.upstreams.banking.received.length, 7, 'the upstream was not contacted');

    // A redirect to another origin is not followed: the signature would go with it.
    const elsewhere = await listenOnce();
    const redirector = createServer((_request, response) => response.writeHead(307, { location: `${elsewhere.url}/v1/balance` }).end());
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
    t.teardown(() => redirector.close());
    await run(interpreter, [script, 'GET', `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/v1/balance`], env);
    t.equal(elsewhere.received(), 0, 'the other origin never saw the signed request');
  });
}

/** A server that counts the requests it gets. */
async function listenOnce(): Promise<{ url: string; received(): number }> {
  let count = 0;
  const server = createServer((_request, response) => {
    count += 1;
    response.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received: () => count };
}
