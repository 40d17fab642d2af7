// gatewayctl explain: prints the RFC 9421 signature base and headers of a request without sending
// it. The base equals buildSignatureBase over the same request, and the gateway accepts the
// printed headers when they are sent as they are (so it verified that very base).
import { createPublicKey } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import {
  buildSignatureBase,
  descriptor,
  headerFields,
  requestFromUrl,
  requiredComponents,
  SignatureHeaders,
  verifyRequestSignature,
} from '../../gateway/signing/index.js';
import { runCli } from '../helpers/cli.js';
import { startTestGateway } from '../helpers/gateway.js';
import { listen } from '../helpers/http.js';
import { createServiceAccount } from '../helpers/signing.js';

interface Explained {
  method: string;
  url: string;
  base: string;
  headers: Record<string, string>;
}

t.test('explain prints the base the gateway verifies, and sends nothing', async (t) => {
  const tg = await startTestGateway(t);
  const { publicUrl } = await listen(tg);
  const sa = await createServiceAccount(tg);
  const dir = mkdtempSync(join(tmpdir(), 'cli-explain-'));
  const keyFile = join(dir, 'key.pem');
  writeFileSync(keyFile, sa.privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  const url = `${publicUrl}/v1/transfers?dry_run=1`;
  const body = '{"amount":"12.50"}';
  const created = Math.floor(Date.now() / 1000);
  const args = [
    'explain',
    '-X',
    'post',
    url,
    '-d',
    body,
    '-H',
    'X-Request-Id: r-1',
    '--access-id',
    sa.account.access_id,
    '--key',
    keyFile,
    '--created',
    String(created),
    '--nonce',
    'n-explain-1',
  ];

  const result = await runCli([...args, '--json']);
  t.equal(result.code, 0, result.stderr);
  const explained = JSON.parse(result.stdout) as Explained;
  t.equal(explained.method, 'POST');
  t.same(Object.keys(explained.headers), ['x-request-id', 'content-type', 'x-access-id', 'content-digest', 'signature-input', 'signature']);
  t.equal(tg.upstreams.banking.received.length, 0, 'nothing was sent');

  // The same request, described independently: the profile's components and parameters.
  const request = requestFromUrl('POST', url, headerFields(Object.entries(explained.headers)));
  const expected = buildSignatureBase(
    request,
    descriptor(requiredComponents(true), { created, nonce: 'n-explain-1', alg: 'ed25519', keyid: sa.account.access_id }),
  );
  t.equal(explained.base, expected, 'the printed base is buildSignatureBase of the same request');
  t.equal(
    explained.base,
    buildSignatureBase(request, SignatureHeaders.parse(explained.headers['signature-input']!, explained.headers.signature!).single()),
    'and of its Signature-Input',
  );
  t.same(
    explained.base.split('\n').map((line) => line.slice(0, line.indexOf(':'))),
    ['"@method"', '"@authority"', '"@path"', '"@query"', '"x-access-id"', '"content-digest"', '"@signature-params"'],
  );
  t.match(explained.base, /^"@query": \?dry_run=1$/m);
  t.equal(verifyRequestSignature(request, { publicKey: createPublicKey(sa.privateKey) }).base, explained.base, 'the signature verifies over that base');

  // Sent as printed, the gateway accepts it: it rebuilt the same base from what it received.
  const sent = await fetch(url, { method: 'POST', headers: explained.headers, body });
  t.equal(sent.status, 200, await sent.clone().text());
  t.equal(((await sent.json()) as { body: string }).body, body);

  // The text form shows the same base, line for line, and the headers.
  const text = await runCli(args);
  t.equal(text.code, 0, text.stderr);
  t.match(text.stdout, `POST ${url} (not sent)`);
  t.ok(text.stdout.includes(`\n${explained.base}\n`), 'the base, verbatim');
  t.match(
    text.stdout,
    /^signature-input: sig1=\("@method" "@authority" "@path" "@query" "x-access-id" "content-digest"\);created=\d+;nonce="n-explain-1";alg="ed25519";keyid="/m,
  );
  t.equal(tg.upstreams.banking.received.length, 1, 'explain itself never sent anything');

  // Like request, it reads GATEWAY_ACCESS_ID and GATEWAY_PRIVATE_KEY_FILE, and takes a body without one.
  const bare = await runCli(['explain', `${publicUrl}/v1/balance`, '--json'], { GATEWAY_ACCESS_ID: sa.account.access_id, GATEWAY_PRIVATE_KEY_FILE: keyFile });
  t.equal(bare.code, 0, bare.stderr);
  const get = JSON.parse(bare.stdout) as Explained;
  t.equal(get.method, 'GET');
  t.notOk('content-digest' in get.headers, 'no body: no content-digest');
  t.match(get.base, /^"@query": \?$/m, 'no query: "?"');

  const noKey = await runCli(['explain', url, '--access-id', sa.account.access_id]);
  t.equal(noKey.code, 2);
  t.match(noKey.stderr, /^gatewayctl: --key FILE \(or GATEWAY_PRIVATE_KEY_FILE\) is required\n$/);
  const badCreated = await runCli([...args.slice(0, -4), '--created', 'yesterday']);
  t.equal(badCreated.code, 2);
  t.match(badCreated.stderr, /--created must be a UNIX time in whole seconds/);
});
