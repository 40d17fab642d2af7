// gatewayctl request answered with a redirect: nothing goes to the Location (no x-access-id,
// Signature, Signature-Input or body), and the command fails with one line naming the status and
// the Location's origin.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runCli } from '../helpers/cli.js';
import { startLanding, startRedirector, verifyReceived } from './redirect-servers.js';

const ACCESS_ID = '3f2b9c1e-7a4d-4e8f-9b6a-2c1d0e5f4a3b';

t.test('a redirect is not followed, whatever its status', async (t) => {
  const landing = await startLanding(t);
  const redirector = await startRedirector(t, landing);
  const dir = mkdtempSync(join(tmpdir(), 'cli-redirects-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const pem = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  const keyFile = join(dir, 'key.pem');
  writeFileSync(keyFile, pem, { mode: 0o600 });

  for (const status of [307, 308, 303]) {
    const result = await runCli(['request', `${redirector.origin}/${status}/away`, '-d', '{"amount":"1.00"}', '--access-id', ACCESS_ID, '--key', keyFile]);
    t.equal(result.code, 1, `${status}: exit 1`);
    t.equal(
      result.stderr,
      `gatewayctl: ${redirector.origin} answered ${status} with a redirect to ${landing.origin}, not followed: a signed request is not sent again to another URL (-i shows the Location; request it yourself if you trust it)\n`,
      `${status}: one line naming the status and the Location's origin`,
    );
    t.notMatch(result.stdout + result.stderr, ACCESS_ID, `${status}: the Access ID is not printed`);
  }
  const shown = await runCli(['request', '-i', `${redirector.origin}/307/here`, '--access-id', ACCESS_ID, '--key', keyFile]);
  t.equal(shown.code, 1, 'within the origin too');
  t.match(shown.stdout, /^HTTP 307 Temporary Redirect\n[\s\S]*location: \/landing\/307\?from=here\n/, '-i shows the status and the Location');
  t.same(landing.received, [], 'the other origin received nothing');
  t.same(
    redirector.received.map((r) => [r.method, r.url]),
    [
      ['POST', '/307/away'],
      ['POST', '/308/away'],
      ['POST', '/303/away'],
      ['GET', '/307/here'],
    ],
    'one request each, no hop',
  );
  for (const received of redirector.received) verifyReceived(received, pem, ACCESS_ID);
});
