// The admin API takes a service account's public key as an ssh-ed25519 line, a PEM SPKI block or a
// JWK (object or JSON text), stores the ssh-ed25519 line whatever the form, and refuses a private
// key with a 400 that says so, without repeating or logging it.
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { sshPublicKeyLine } from '../../gateway/signing/index.js';
import { startTestGateway } from '../helpers/gateway.js';
import { adminInject, signedInject, type CreatedServiceAccount } from '../helpers/signing.js';

const ACCEPTED =
  /^public_key: .*"ssh-ed25519 <base64> \[comment\]" line, a PEM "-----BEGIN PUBLIC KEY-----" block, or a JWK \{"kty":"OKP","crv":"Ed25519","x":"<base64url>"\} \(as an object or JSON text\)$/;
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const pemOf = (der: Buffer) => `-----BEGIN PUBLIC KEY-----\n${der.toString('base64')}\n-----END PUBLIC KEY-----\n`;

/** The same bytes with the unused low bits before the "=" set, which a lax decoder ignores. */
function nonCanonicalBase64(bytes: Buffer): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const text = bytes.toString('base64');
  const at = text.indexOf('=') - 1;
  return `${text.slice(0, at)}${alphabet[alphabet.indexOf(text[at]!) | 1]}${text.slice(at + 1)}`;
}

function sshKeygen(): { privateFile: string; publicLine: string } {
  const dir = mkdtempSync(join(tmpdir(), 'sa-forms-'));
  const privateFile = join(dir, 'id_ed25519');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'ops@example', '-f', privateFile]);
  return { privateFile, publicLine: readFileSync(`${privateFile}.pub`, 'utf8').trim() };
}

function sshKeygenFingerprint(line: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'sa-fp-')), 'key.pub');
  writeFileSync(file, `${line}\n`);
  return execFileSync('ssh-keygen', ['-lf', file], { encoding: 'utf8' }).split(' ')[1]!;
}

t.test('each form is stored as the ssh-ed25519 line, with the fingerprint ssh-keygen prints, and signs requests', async (t) => {
  const tg = await startTestGateway(t);
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const line = sshPublicKeyLine(publicKey);
  const jwk = publicKey.export({ format: 'jwk' });
  const forms: [string, unknown][] = [
    ['ssh-ed25519 line', `${line} ops@example`],
    ['PEM (openssl pkey -pubout)', publicKey.export({ format: 'pem', type: 'spki' }).toString()],
    ['PEM with CRLF line ends', publicKey.export({ format: 'pem', type: 'spki' }).toString().replace(/\n/g, '\r\n')],
    ['JWK object', jwk],
    ['JWK object with alg, use, kid', { ...jwk, alg: 'EdDSA', use: 'sig', kid: 'payroll-1', key_ops: ['verify'] }],
    ['JWK as JSON text', JSON.stringify(jwk)],
  ];
  for (const [name, publicKeyValue] of forms) {
    const created = await adminInject(tg, {
      method: 'POST',
      url: '/admin/v1/service-accounts',
      payload: { description: name, public_key: publicKeyValue, permissions: ['view_balance'] },
    });
    t.equal(created.statusCode, 201, `${name}: ${created.body}`);
    const account = created.json<CreatedServiceAccount>();
    t.equal(account.public_key, name === 'ssh-ed25519 line' ? `${line} ops@example` : line, `${name}: stored as the ssh-ed25519 line`);
    t.equal(account.fingerprint, sshKeygenFingerprint(line), `${name}: the fingerprint ssh-keygen -lf prints`);
    const signed = await signedInject(tg, { account, privateKey }, { method: 'GET', url: '/v1/balance' });
    t.equal(signed.statusCode, 200, `${name}: the account verifies signatures of the key: ${signed.body}`);
  }
});

t.test('a key made by ssh-keygen, given as its .pub line', async (t) => {
  const tg = await startTestGateway(t);
  const { publicLine } = sshKeygen();
  const created = await adminInject(tg, {
    method: 'POST',
    url: '/admin/v1/service-accounts',
    payload: { description: 'ssh-keygen', public_key: publicLine, permissions: ['view_balance'] },
  });
  t.equal(created.statusCode, 201, created.body);
  t.equal(created.json().public_key, publicLine);
});

t.test('a private key given as the public key: 400 saying so, nothing stored, the key in no answer or log', async (t) => {
  const tg = await startTestGateway(t);
  const { privateKey } = generateKeyPairSync('ed25519');
  const { privateFile } = sshKeygen();
  const privateJwk = privateKey.export({ format: 'jwk' });
  const cases: [string, unknown, RegExp][] = [
    [
      'PKCS#8 PEM',
      privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
      /^public_key: is a private key \(PEM "PRIVATE KEY"\); give the public key \(openssl pkey -in KEY -pubout prints it\), and keep the private key secret$/,
    ],
    [
      'encrypted PKCS#8 PEM',
      privateKey.export({ format: 'pem', type: 'pkcs8', cipher: 'aes-256-cbc', passphrase: 'pw' }).toString(),
      /^public_key: is a private key \(PEM "ENCRYPTED PRIVATE KEY"\)/,
    ],
    [
      'OpenSSH private key file',
      readFileSync(privateFile, 'utf8'),
      /^public_key: is an OpenSSH private key; give the line of its \.pub file \(ssh-keygen -y -f KEY prints it\), and keep the private key secret$/,
    ],
    [
      'private JWK object',
      privateJwk,
      /^public_key: is a private JWK \(it has "d"\), not a public key; give the public JWK \(without "d"\) and keep the private key secret$/,
    ],
    ['private JWK as JSON text', JSON.stringify(privateJwk), /^public_key: is a private JWK \(it has "d"\)/],
    ['JWK Set holding a private key', { keys: [privateJwk] }, /^public_key: is a private JWK \(it has "d"\)/],
  ];
  for (const [name, value, message] of cases) {
    const response = await adminInject(tg, {
      method: 'POST',
      url: '/admin/v1/service-accounts',
      payload: { description: name, public_key: value, permissions: ['view_balance'] },
    });
    t.equal(response.statusCode, 400, `${name}: ${response.body}`);
    const body = response.json();
    t.equal(body.error, 'validation_error');
    t.equal(body.field, 'public_key');
    t.match(body.message, message, name);
    t.notOk(response.body.includes(privateJwk.d!) || /[A-Za-z0-9+/]{40}/.test(response.body), `${name}: the answer repeats no key material`);
  }
  t.notOk(tg.logs.text.includes(privateJwk.d!) || tg.logs.text.includes('PRIVATE KEY'), 'no log line carries the private key');
  t.same(
    (await adminInject(tg, { method: 'GET', url: '/admin/v1/service-accounts' })).json(),
    { service_accounts: [], next_cursor: null },
    'nothing was written',
  );
});

t.test('anything else: 400 naming public_key and the accepted forms, or what is wrong with the form given', async (t) => {
  const tg = await startTestGateway(t);
  const { publicKey } = generateKeyPairSync('ed25519');
  const der = publicKey.export({ format: 'der', type: 'spki' });
  const x = publicKey.export({ format: 'jwk' }).x!;
  const identity = Buffer.concat([Buffer.from([1]), Buffer.alloc(31)]);
  const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey;
  const cases: [string, unknown, string | RegExp][] = [
    ['missing', undefined, ACCEPTED],
    ['a number', 42, ACCEPTED],
    ['a list', [x], ACCEPTED],
    ['empty', '   ', ACCEPTED],
    ['raw base64', x, ACCEPTED],
    ['hex', Buffer.from(x, 'base64url').toString('hex'), ACCEPTED],
    ['an RSA PEM', rsa.export({ format: 'pem', type: 'spki' }).toString(), 'public_key: is an RSA public key; only Ed25519 keys are accepted'],
    [
      'an X25519 PEM',
      generateKeyPairSync('x25519').publicKey.export({ format: 'pem', type: 'spki' }).toString(),
      'public_key: is an X25519 public key; only Ed25519 keys are accepted',
    ],
    [
      'DER with a trailing byte',
      pemOf(Buffer.concat([der, Buffer.from([0])])),
      'public_key: is not a valid DER SubjectPublicKeyInfo: 1 bytes follow the SubjectPublicKeyInfo',
    ],
    [
      'DER with NULL parameters',
      pemOf(Buffer.concat([Buffer.from('302c300706032b65700500032100', 'hex'), der.subarray(12)])),
      'public_key: is not a valid DER SubjectPublicKeyInfo: the Ed25519 AlgorithmIdentifier has parameters, which RFC 8410 forbids',
    ],
    [
      'DER with a long-form length',
      pemOf(Buffer.concat([Buffer.from('30812a', 'hex'), der.subarray(2)])),
      'public_key: is not a valid DER SubjectPublicKeyInfo: the length of the SubjectPublicKeyInfo SEQUENCE is not in its shortest (DER) form',
    ],
    [
      'DER with unused bits',
      pemOf(Buffer.concat([der.subarray(0, 11), Buffer.from([1]), der.subarray(12)])),
      'public_key: is not a valid DER SubjectPublicKeyInfo: the subjectPublicKey BIT STRING must start with 0 unused bits',
    ],
    [
      'PEM with text after it',
      `${String(publicKey.export({ format: 'pem', type: 'spki' }))}\nextra`,
      'public_key: has no "-----END PUBLIC KEY-----" line at its end',
    ],
    [
      'PEM with non-canonical base64',
      `-----BEGIN PUBLIC KEY-----\n${nonCanonicalBase64(der)}\n-----END PUBLIC KEY-----`,
      'public_key: is a PEM block whose base64 is not canonical',
    ],
    [
      'a certificate',
      '-----BEGIN CERTIFICATE-----\nMAA=\n-----END CERTIFICATE-----',
      'public_key: is an X.509 certificate, not a public key; give its public key (openssl x509 -pubkey -noout -in FILE)',
    ],
    [
      'an RFC 4716 key',
      '---- BEGIN SSH2 PUBLIC KEY ----\nAAAA\n---- END SSH2 PUBLIC KEY ----',
      'public_key: is an RFC 4716 SSH2 public key; convert it to a line with ssh-keygen -i -f FILE',
    ],
    ['an RSA JWK', rsa.export({ format: 'jwk' }), /^public_key: is a JWK whose kty is "RSA"; only Ed25519 keys are accepted/],
    ['an X25519 JWK', { kty: 'OKP', crv: 'X25519', x }, /^public_key: is an OKP JWK whose crv is "X25519"; only Ed25519 keys are accepted/],
    ['a JWK without x', { kty: 'OKP', crv: 'Ed25519' }, /^public_key: is a JWK without "x"/],
    ['a JWK with padded x', { kty: 'OKP', crv: 'Ed25519', x: `${x}=` }, 'public_key: has an "x" that is not unpadded base64url'],
    ['a JWK with a short x', { kty: 'OKP', crv: 'Ed25519', x: x.slice(0, 40) }, 'public_key: has an "x" of 30 bytes; an Ed25519 key has exactly 32'],
    ['a JWK for encryption', { kty: 'OKP', crv: 'Ed25519', x, use: 'enc' }, 'public_key: has a use that is "enc"; a signature key has use "sig", or none'],
    ['a JWK Set', { keys: [{ kty: 'OKP', crv: 'Ed25519', x }] }, /^public_key: is a JWK Set; give the one key/],
    ['JSON text that is not JSON', '{kty: OKP}', /^public_key: starts with "\{" but is not valid JSON/],
    [
      'the identity as PEM',
      pemOf(Buffer.concat([SPKI_PREFIX, identity])),
      'public_key: is not a usable Ed25519 public key: it is the identity point, for which signatures can be forged without any private key',
    ],
    [
      'the identity as JWK',
      { kty: 'OKP', crv: 'Ed25519', x: identity.toString('base64url') },
      'public_key: is not a usable Ed25519 public key: it is the identity point, for which signatures can be forged without any private key',
    ],
  ];
  for (const [name, value, message] of cases) {
    const response = await adminInject(tg, {
      method: 'POST',
      url: '/admin/v1/service-accounts',
      payload: { description: name, public_key: value, permissions: ['view_balance'] },
    });
    t.equal(response.statusCode, 400, `${name}: ${response.body}`);
    const body = response.json();
    t.equal(body.error, 'validation_error', name);
    t.equal(body.field, 'public_key', name);
    if (typeof message === 'string') t.equal(body.message, message, name);
    else t.match(body.message, message, name);
  }
  t.same(
    (await adminInject(tg, { method: 'GET', url: '/admin/v1/service-accounts' })).json(),
    { service_accounts: [], next_cursor: null },
    'nothing was written',
  );
});

t.test('the OpenAPI document describes the three forms, and its examples are one key', async (t) => {
  const tg = await startTestGateway(t, { store: 'embedded' });
  const doc = (await tg.gateway.adminApp.inject({ url: '/admin/openapi.json' })).json();
  const field = doc.paths['/admin/v1/service-accounts'].post.requestBody.content['application/json'].schema.properties.public_key;
  t.match(field.description, /ssh-ed25519.*BEGIN PUBLIC KEY.*JWK/s);
  const lines = new Set<string>();
  for (const example of field.examples as unknown[]) {
    const created = await adminInject(tg, {
      method: 'POST',
      url: '/admin/v1/service-accounts',
      payload: { description: 'example', public_key: example, permissions: ['view_balance'] },
    });
    t.equal(created.statusCode, 201, created.body);
    lines.add(created.json().fingerprint);
  }
  t.equal(lines.size, 1, 'every example is the same key (RFC 9421 B.1.4)');
});
