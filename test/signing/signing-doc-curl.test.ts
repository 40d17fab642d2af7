// SIGNING.md section 1's curl call, run as written against a listening gateway (its admin URL put
// in for 127.0.0.1:8081): the PEM public key, escaped into JSON by node, makes a service account.
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { REPO_ROOT, startTestGateway } from '../helpers/gateway.js';
import { listen } from '../helpers/http.js';

const execFileAsync = promisify(execFile);

t.test("SIGNING.md's curl call creates a service account from a PEM public key", async (t) => {
  const doc = readFileSync(join(REPO_ROOT, 'SIGNING.md'), 'utf8');
  const block = [...doc.matchAll(/```sh\n([\s\S]*?)```/g)]
    .map((m) => m[1]!)
    .find((text) => text.startsWith('curl -sS -X POST http://127.0.0.1:8081/admin/v1/service-accounts'));
  t.ok(block, 'the block is in SIGNING.md');
  const tg = await startTestGateway(t, { store: 'embedded' });
  const { adminUrl } = await listen(tg);
  const dir = mkdtempSync(join(tmpdir(), 'gw-signing-doc-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'payroll.pub.pem'), generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString());
  const { stdout } = await execFileAsync('bash', ['-euc', block!.replace('http://127.0.0.1:8081', adminUrl)], {
    cwd: dir,
    env: { PATH: process.env.PATH, GATEWAY_ADMIN_TOKEN: tg.adminToken },
    timeout: 30_000,
  });
  const created = JSON.parse(stdout) as { description: string; permissions: string[]; access_id: string; fingerprint: string };
  t.match(created, { description: 'Payroll', permissions: ['view_balance', 'initiate_payment'], fingerprint: /^SHA256:/ });
  t.ok(await tg.gateway.store.findServiceAccountByAccessId(created.access_id), 'the account exists');
});
