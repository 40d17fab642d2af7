// The README's five-minute walkthrough, run as written against a gateway started the way
// `npm start` starts it (embedded store, example upstreams, generated admin token). Only the
// ports and the token file's directory differ, so that tests can run side by side.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { REPO_ROOT } from '../helpers/gateway.js';
import { startGatewayProcess } from '../helpers/gateway-process.js';

function walkthroughScript(): string {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Five-minute walkthrough'));
  const match = /```sh\n([\s\S]*?)```/.exec(section);
  if (!match) throw new Error('README has no walkthrough shell block');
  return match[1]!;
}

t.test('the README walkthrough works when pasted as written', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-readme-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const gateway = await startGatewayProcess(t, { GATEWAY_DATA_DIR: dataDir });
  t.match(gateway.output(), /EXAMPLE upstream/, 'the example upstreams are announced in the log');

  const script = walkthroughScript()
    .replaceAll('127.0.0.1:8080', `127.0.0.1:${gateway.port}`)
    .replaceAll('127.0.0.1:8081', `127.0.0.1:${gateway.adminPort}`)
    .replaceAll('.gateway/admin-token', join(dataDir, 'admin-token'));
  const output = execFileSync('bash', ['-euo', 'pipefail', '-c', script], { cwd: dataDir, encoding: 'utf8', env: { PATH: process.env.PATH } });

  t.match(output, /"client_secret":"[A-Za-z0-9_-]{43}"/, 'step 1 shows the new secret');
  t.match(output, /"token_type":"Bearer","expires_in":86400,"scope":"sales"/, 'step 2 returns a token');
  t.match(output, /"upstream":"public","method":"GET","url":"\/v1\/sales\/42"/, 'step 3 reaches the example upstream');
  t.match(output, /"x-gateway-scopes":"sales"/, 'the upstream sees the identity headers');
  t.match(output, /HTTP\/1.1 401 Unauthorized[\s\S]*www-authenticate: Bearer realm="gateway"[\s\S]*"error":"invalid_token"/i, 'no token: 401');
  t.match(output, /HTTP\/1.1 403 Forbidden[\s\S]*"error":"insufficient_scope"/, 'missing scope: 403');
  // Each answer on lines of its own, so the outputs do not run together.
  t.match(output, /^\{"access_token":.*\}$/m, 'the token response ends its line');
  t.match(output, /^\{.*"upstream":"public".*\}$/m, "the upstream's echo is a line of its own");
  t.match(output, /\}\nHTTP\/1.1 403 Forbidden/, 'the 401 body ends before the next response starts');
});
