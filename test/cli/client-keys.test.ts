// gatewayctl for private_key_jwt clients: create one from a JWKS file (no secret printed), add a
// second key, remove the old one; each key the CLI sent verifies assertions, the removed one no more.
import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestGateway } from '../helpers/gateway.js';
import { runCli } from '../helpers/cli.js';
import { listen } from '../helpers/http.js';
import { tokenRequest } from '../helpers/oauth.js';
import { assertionForm, claimsFor, keyPair, signAssertion, type TestKeyPair } from '../helpers/client-assertion.js';

t.test('gatewayctl creates a private_key_jwt client and rotates its keys', async (t) => {
  const tg = await startTestGateway(t);
  const env = { GATEWAY_ADMIN_URL: (await listen(tg)).adminUrl, GATEWAY_ADMIN_TOKEN: tg.adminToken };
  const dir = mkdtempSync(join(tmpdir(), 'client-keys-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const oldKey = keyPair('Ed25519', 'old');
  const newKey = keyPair('P-256', 'new');
  writeFileSync(join(dir, 'jwks.json'), JSON.stringify({ keys: [oldKey.publicJwk] }));
  writeFileSync(join(dir, 'new.json'), JSON.stringify(newKey.publicJwk));
  const works = async (clientId: string, key: TestKeyPair) =>
    (await tokenRequest(tg, assertionForm(signAssertion({ alg: key.alg, kid: key.publicJwk.kid }, claimsFor(clientId, 'http://gateway.test'), key))))
      .statusCode;

  const created = await runCli(['clients', 'create', '--name', 'keyed', '--scopes', 'sales', '--jwks-file', join(dir, 'jwks.json')], env);
  t.equal(created.code, 0, created.stderr);
  t.match(created.stdout, /^key:\s+old \(OKP Ed25519\)$/m);
  t.match(created.stdout, /No secret/);
  t.notMatch(created.stdout, /client_secret/);
  const clientId = /^client_id:\s+(\S+)$/m.exec(created.stdout)![1]!;
  t.equal(await works(clientId, oldKey), 200);

  const added = await runCli(['clients', 'keys', 'add', clientId, '--jwk-file', join(dir, 'new.json'), '--json'], env);
  t.equal(added.code, 0, added.stderr);
  t.same(
    (JSON.parse(added.stdout) as { jwks: { keys: { kid: string }[] } }).jwks.keys.map((k) => k.kid),
    ['old', 'new'],
  );
  t.equal(await works(clientId, newKey), 200, 'the added key verifies');

  const removed = await runCli(['clients', 'keys', 'remove', clientId, 'old'], env);
  t.equal(removed.code, 0, removed.stderr);
  t.match(removed.stdout, /Removed key old/);
  t.equal(await works(clientId, oldKey), 401, 'the removed key no longer does');

  const last = await runCli(['clients', 'keys', 'remove', clientId, 'new'], env);
  t.not(last.code, 0);
  t.match(last.stderr, /client_last_key|only key/);
  const missing = await runCli(['clients', 'keys', 'add', clientId, '--jwk-file', join(dir, 'absent.json')], env);
  t.not(missing.code, 0);
  t.match(missing.stderr, /cannot read JWK file/);
});
