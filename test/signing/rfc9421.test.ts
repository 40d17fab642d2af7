// The exported library against externally anchored values: RFC 9421 Appendix B.2.6 (key B.1.4),
// the RFC's example Content-Digest, and keys and fingerprints made by ssh-keygen and openssl.
import { execFileSync } from 'node:child_process';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import {
  buildSignatureBase,
  checkContentDigest,
  contentDigest,
  headerFields,
  loadPrivateKey,
  rawPublicKey,
  requestFromUrl,
  signMessage,
  signRequest,
  sshPublicKeyLine,
  SignatureError,
  SignatureHeaders,
  verifyRequestSignature,
} from '../../gateway/signing/index.js';
import { parseSshEd25519PublicKey } from '../../gateway/service-accounts/ssh-public-key.js';
import { startTestGateway } from '../helpers/gateway.js';
import { adminInject } from '../helpers/signing.js';

// RFC 9421 Appendix B.1.4 (test-key-ed25519) and B.2.6.
const B14_PUBLIC_PEM = '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAJrQLj5P/89iXES9+vFgrIy29clF9CC/oPPsw3c5D0bs=\n-----END PUBLIC KEY-----\n';
const B14_PRIVATE_PEM = '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF\n-----END PRIVATE KEY-----\n';
const B26_INPUT = 'sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"';
const B26_SIGNATURE = 'sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==:';
const B26_BASE = [
  '"date": Tue, 20 Apr 2021 02:07:55 GMT',
  '"@method": POST',
  '"@path": /foo',
  '"@authority": example.com',
  '"content-type": application/json',
  '"content-length": 18',
  '"@signature-params": ("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"',
].join('\n');

/** The test-request message of RFC 9421 Appendix B.2. */
function testRequest(overrides: Record<string, string> = {}) {
  return requestFromUrl(
    'POST',
    'https://example.com/foo?param=Value&Pet=dog',
    headerFields(
      Object.entries({
        host: 'example.com',
        date: 'Tue, 20 Apr 2021 02:07:55 GMT',
        'content-type': 'application/json',
        'content-digest': 'sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:',
        'content-length': '18',
        'signature-input': B26_INPUT,
        signature: B26_SIGNATURE,
        ...overrides,
      }),
    ),
  );
}

t.test('RFC 9421 B.2.6 verifies through the exported verifier', async (t) => {
  const publicKey = createPublicKey(B14_PUBLIC_PEM);
  const verified = verifyRequestSignature(testRequest(), { label: 'sig-b26', publicKey });
  t.equal(verified.base, B26_BASE, 'the signature base is byte for byte the RFC one');
  t.equal(verified.signature.params.keyid, 'test-key-ed25519');
  t.same(
    verifyRequestSignature(testRequest(), { keyid: 'test-key-ed25519', publicKey: rawPublicKey(publicKey) }).base,
    B26_BASE,
    'also by keyid with raw key bytes',
  );

  // Deterministic Ed25519: signing the same base with the B.1.4 private key gives the RFC signature.
  const signature = SignatureHeaders.parse(B26_INPUT, B26_SIGNATURE).byLabel('sig-b26');
  const signed = signMessage(testRequest(), signature.components, signature.params, loadPrivateKey(B14_PRIVATE_PEM), 'sig-b26');
  t.equal(signed.signature, B26_SIGNATURE);
  t.equal(signed['signature-input'], B26_INPUT);
  t.equal(buildSignatureBase(testRequest(), signature), B26_BASE);

  for (const [name, value] of [
    ['date', 'Tue, 20 Apr 2021 02:07:56 GMT'],
    ['content-length', '19'],
  ] as const) {
    t.throws(() => verifyRequestSignature(testRequest({ [name]: value }), { label: 'sig-b26', publicKey }), /does not verify/, `a changed ${name} fails`);
  }
  t.throws(
    () => verifyRequestSignature({ ...testRequest(), authority: 'example.org' }, { label: 'sig-b26', publicKey }),
    /does not verify/,
    'a changed authority fails',
  );
  t.throws(() => verifyRequestSignature({ ...testRequest(), path: '/Foo' }, { label: 'sig-b26', publicKey }), /does not verify/, 'a changed path fails');
  t.throws(
    () => verifyRequestSignature(testRequest({ 'signature-input': B26_INPUT.replace('1618884473', '1618884474') }), { label: 'sig-b26', publicKey }),
    SignatureError,
  );
  t.throws(
    () => verifyRequestSignature(testRequest(), { label: 'sig-b26', publicKey: rawPublicKey(generateKeyPairSync('ed25519').publicKey) }),
    /does not verify/,
  );
  t.throws(() => verifyRequestSignature(testRequest(), { label: 'other', publicKey }), /no signature labelled other/);
});

t.test('the B.1.4 key in ssh-ed25519 form is accepted as a service account key', async (t) => {
  const line = sshPublicKeyLine(createPublicKey(B14_PUBLIC_PEM), 'test-key-ed25519');
  const tg = await startTestGateway(t);
  const response = await adminInject(tg, {
    method: 'POST',
    url: '/admin/v1/service-accounts',
    payload: { description: 'RFC 9421 B.1.4', public_key: line, permissions: ['view_balance'] },
  });
  t.equal(response.statusCode, 201, response.body);
  t.equal(response.json().public_key, line);
  t.equal(response.json().fingerprint, parseSshEd25519PublicKey(line).fingerprint);
});

t.test('RFC 9530 Content-Digest', async (t) => {
  const body = Buffer.from('{"hello": "world"}');
  t.equal(
    contentDigest(body, 'sha-512'),
    'sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:',
    'the RFC 9421 test-request digest',
  );
  t.equal(checkContentDigest(contentDigest(body), body), 'match');
  t.equal(checkContentDigest(`${contentDigest(body)}, ${contentDigest(body, 'sha-512')}`, body), 'match');
  t.equal(checkContentDigest(contentDigest(body), Buffer.from('{"hello": "World"}')), 'mismatch');
  t.equal(checkContentDigest(`${contentDigest(body)}, ${contentDigest(Buffer.from('x'), 'sha-512')}`, body), 'mismatch', 'every supported member must match');
  t.equal(checkContentDigest('md5=:Sd/dVLAcvNLSq16eXua5uQ==:', body), 'no_supported_algorithm');
  t.equal(checkContentDigest('sha-256=abc', body), 'malformed');
  t.equal(checkContentDigest('sha-256=:', body), 'malformed');
});

t.test('keys from ssh-keygen and openssl load, and the public line matches ssh-keygen', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'keys-'));
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'me@laptop', '-f', join(dir, 'id_ed25519')]);
  const opensshKey = loadPrivateKey(readFileSync(join(dir, 'id_ed25519'), 'utf8'));
  t.equal(sshPublicKeyLine(opensshKey, 'me@laptop'), readFileSync(join(dir, 'id_ed25519.pub'), 'utf8').trim());
  const fingerprint = execFileSync('ssh-keygen', ['-lf', join(dir, 'id_ed25519.pub')], { encoding: 'utf8' }).split(' ')[1];
  t.equal(parseSshEd25519PublicKey(readFileSync(join(dir, 'id_ed25519.pub'), 'utf8')).fingerprint, fingerprint);

  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', 'secret', '-f', join(dir, 'locked')]);
  t.throws(() => loadPrivateKey(readFileSync(join(dir, 'locked'), 'utf8')), /encrypted with a passphrase/);
  execFileSync('ssh-keygen', ['-q', '-t', 'ecdsa', '-N', '', '-f', join(dir, 'ecdsa')]);
  t.throws(() => loadPrivateKey(readFileSync(join(dir, 'ecdsa'), 'utf8')), /not ssh-ed25519/);

  execFileSync('openssl', ['genpkey', '-algorithm', 'ed25519', '-out', join(dir, 'key.pem')]);
  const pem = loadPrivateKey(readFileSync(join(dir, 'key.pem'), 'utf8'));
  t.equal(pem.asymmetricKeyType, 'ed25519');
  execFileSync('openssl', ['genpkey', '-algorithm', 'x25519', '-out', join(dir, 'x.pem')]);
  t.throws(() => loadPrivateKey(readFileSync(join(dir, 'x.pem'), 'utf8')), /not Ed25519/);
});

t.test('signRequest covers what the gateway profile requires', async (t) => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const accessId = '8d2f3c1e-1111-4a2b-9c3d-0123456789ab';
  const body = '{"amount":"1.00"}';
  const added = signRequest({
    method: 'post',
    url: 'https://Bank.Example:443/v1/transfers?x=1',
    headers: { 'content-type': 'application/json' },
    body,
    accessId,
    privateKey,
    created: 1700000000,
    nonce: 'n-1',
  });
  t.same(Object.keys(added).sort(), ['content-digest', 'signature', 'signature-input', 'x-access-id']);
  t.equal(
    added['signature-input'],
    `sig1=("@method" "@authority" "@path" "@query" "x-access-id" "content-digest");created=1700000000;nonce="n-1";alg="ed25519";keyid="${accessId}"`,
  );
  const request = requestFromUrl(
    'POST',
    'https://bank.example/v1/transfers?x=1',
    headerFields(Object.entries({ 'content-type': 'application/json', ...added })),
  );
  const verified = verifyRequestSignature(request, { keyid: accessId, publicKey });
  t.equal(
    verified.base,
    [
      '"@method": POST',
      '"@authority": bank.example',
      '"@path": /v1/transfers',
      '"@query": ?x=1',
      `"x-access-id": ${accessId}`,
      `"content-digest": ${contentDigest(body)}`,
      `"@signature-params": ("@method" "@authority" "@path" "@query" "x-access-id" "content-digest");created=1700000000;nonce="n-1";alg="ed25519";keyid="${accessId}"`,
    ].join('\n'),
  );
  const get = signRequest({ method: 'GET', url: 'http://bank.example:8080/v1/balance', accessId, privateKey });
  t.notOk('content-digest' in get, 'no body, no digest');
  t.match(get['signature-input'], /^sig1=\("@method" "@authority" "@path" "@query" "x-access-id"\);created=\d+;nonce="[A-Za-z0-9_-]{22}";alg="ed25519";keyid=/);
  const base = verifyRequestSignature(requestFromUrl('GET', 'http://bank.example:8080/v1/balance', headerFields(Object.entries(get))), { publicKey }).base;
  t.match(base, /^"@method": GET\n"@authority": bank\.example:8080\n"@path": \/v1\/balance\n"@query": \?\n/);
});
