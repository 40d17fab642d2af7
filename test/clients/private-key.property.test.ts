// The client package's private key reader (clients/typescript/src/private-key.ts) takes files users
// point it at: every key form reads to the same key, and anything else, however broken, is one
// PrivateKeyError, never another exception or a key other than the file's own.
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import fc from 'fast-check';
import t from 'tap';
import { loadPrivateKey, PrivateKeyError, rawPublicKey } from '../../clients/typescript/src/index.js';
import { armourOpenSsh, openSshBlob, openSshPrivateKey, pkcs8PemOfSeed, publicKeyOfSeed } from '../helpers/openssh-key.js';
import { holds } from '../helpers/property.js';

const seed = fc.uint8Array({ minLength: 32, maxLength: 32 });

/** The key the input reads to, or 'refused' for a PrivateKeyError; anything else fails the property. */
function read(input: string | Uint8Array): KeyObject | 'refused' {
  try {
    const key = loadPrivateKey(input);
    if (key.type !== 'private' || key.asymmetricKeyType !== 'ed25519') throw new Error(`read a ${key.type} ${key.asymmetricKeyType} key`);
    return key;
  } catch (error) {
    if (error instanceof PrivateKeyError && error.message.length > 0) return 'refused';
    throw error;
  }
}

t.test('OpenSSH and PKCS#8 forms of one seed read to the same key, as text or bytes', async (t) => {
  holds(
    t,
    fc.property(seed, fc.string({ maxLength: 30 }), fc.constantFrom('\n', '\r\n'), fc.constantFrom('', '  \n', '\n\n'), (s, comment, eol, around) => {
      const expected = publicKeyOfSeed(s);
      const openssh = `${around}${armourOpenSsh(openSshBlob(s, { comment }), eol)}${around}`;
      const pkcs8 = `${around}${pkcs8PemOfSeed(s).replace(/\n/g, eol)}`;
      const keys = [openssh, Buffer.from(openssh), pkcs8, new TextEncoder().encode(pkcs8)].map(read);
      for (const key of keys) {
        if (key === 'refused') throw new Error('a valid key was refused');
        if (!rawPublicKey(key).equals(expected)) throw new Error('read another key');
      }
      // Ed25519 is deterministic: the same key signs the same bytes identically.
      const signatures = keys.map((key) => sign(null, Buffer.from('base'), key as KeyObject).toString('base64'));
      if (new Set(signatures).size !== 1) throw new Error('the forms sign differently');
    }),
    100,
  );
});

t.test('arbitrary text and bytes: a key or PrivateKeyError, nothing else', async (t) => {
  const armour = fc.constantFrom(
    'PRIVATE KEY',
    'OPENSSH PRIVATE KEY',
    'RSA PRIVATE KEY',
    'EC PRIVATE KEY',
    'ENCRYPTED PRIVATE KEY',
    'PUBLIC KEY',
    'CERTIFICATE',
  );
  const pemLike = fc
    .tuple(armour, fc.uint8Array({ maxLength: 120 }))
    .map(([label, bytes]) => `-----BEGIN ${label}-----\n${Buffer.from(bytes).toString('base64')}\n-----END ${label}-----\n`);
  const jsonLike = fc.oneof(
    fc.json(),
    fc
      .record(
        {
          kty: fc.constantFrom('OKP', 'EC', 'RSA', 'oct'),
          crv: fc.constantFrom('Ed25519', 'X25519', 'Ed448', 'P-256'),
          d: fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b).toString('base64url')),
        },
        { requiredKeys: [] },
      )
      .map((jwk) => JSON.stringify(jwk)),
  );
  holds(
    t,
    fc.property(
      fc.oneof(fc.string({ maxLength: 200 }), fc.string({ unit: 'binary', maxLength: 200 }), pemLike, jsonLike, fc.uint8Array({ maxLength: 200 })),
      (input) => {
        read(input);
      },
    ),
    500,
  );
});

t.test('a damaged OpenSSH file: refused, or read to the key it states (never another)', async (t) => {
  const damage = fc.oneof(
    fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), xor: fc.integer({ min: 1, max: 255 }) }),
    fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
    fc.record({ kind: fc.constant('append' as const), bytes: fc.uint8Array({ minLength: 1, maxLength: 16 }) }),
  );
  holds(
    t,
    fc.property(seed, fc.array(damage, { minLength: 1, maxLength: 3 }), (s, damages) => {
      let blob = openSshBlob(s);
      for (const d of damages) {
        if (d.kind === 'flip') {
          blob = Buffer.from(blob);
          const at = d.at % blob.length;
          blob[at] = blob[at]! ^ d.xor;
        } else if (d.kind === 'truncate') blob = blob.subarray(0, d.at % blob.length);
        else blob = Buffer.concat([blob, d.bytes]);
      }
      const key = read(armourOpenSsh(blob));
      // Damage to the comment, padding or trailing bytes may leave the key readable; then it is the
      // key whose public half the file states, never one made up from damaged seed bytes.
      if (key !== 'refused' && !blob.includes(rawPublicKey(key))) throw new Error('read a key whose public half the file does not state');
    }),
    500,
  );
});

t.test('OpenSSH fields a reader must check', async (t) => {
  const s = Buffer.alloc(32, 7);
  t.ok(read(openSshPrivateKey(s, { comment: '' })) !== 'refused', 'an empty comment is fine');
  t.throws(() => loadPrivateKey(openSshPrivateKey(s, { checkint: 1, checkint2: 2 })), { name: 'PrivateKeyError', message: /check integers differ/ });
  t.throws(() => loadPrivateKey(openSshPrivateKey(s, { keyType: 'ssh-rsa' })), { name: 'PrivateKeyError', message: /"ssh-rsa", not ssh-ed25519/ });
  // The public key stated beside the seed must be the seed's: a spliced file is corrupt.
  const spliced = openSshBlob(s);
  const other = publicKeyOfSeed(Buffer.alloc(32, 8));
  const own = publicKeyOfSeed(s);
  let at = spliced.indexOf(own);
  while (at >= 0) {
    other.copy(spliced, at);
    at = spliced.indexOf(own);
  }
  t.throws(() => loadPrivateKey(armourOpenSsh(spliced)), { name: 'PrivateKeyError', message: /public key does not belong to its private key/ });
});

t.test('keys that are not Ed25519 private keys are refused by name', async (t) => {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 });
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const x25519 = generateKeyPairSync('x25519');
  const ed = generateKeyPairSync('ed25519');
  t.throws(() => loadPrivateKey(rsa.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString()), {
    name: 'PrivateKeyError',
    message: /the key is rsa, not Ed25519/,
  });
  t.throws(() => loadPrivateKey(ec.privateKey), { name: 'PrivateKeyError', message: /ec, not Ed25519/ });
  t.throws(() => loadPrivateKey(JSON.stringify(x25519.privateKey.export({ format: 'jwk' }))), { name: 'PrivateKeyError', message: /x25519, not Ed25519/ });
  t.throws(() => loadPrivateKey(ed.publicKey), { name: 'PrivateKeyError', message: /public key; signing needs the private key/ });
  t.throws(() => loadPrivateKey(ed.publicKey.export({ format: 'pem', type: 'spki' }).toString()), { name: 'PrivateKeyError' });
  const encrypted = ed.privateKey.export({ format: 'pem', type: 'pkcs8', cipher: 'aes-256-cbc', passphrase: 'secret' }).toString();
  t.throws(() => loadPrivateKey(encrypted), { name: 'PrivateKeyError', message: /encrypted with a passphrase/ });
  const jwk = ed.privateKey.export({ format: 'jwk' });
  t.ok(rawPublicKey(loadPrivateKey(JSON.stringify(jwk))).equals(rawPublicKey(ed.publicKey)), 'a private JWK reads');
  const otherX = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x;
  t.throws(() => loadPrivateKey(JSON.stringify({ ...jwk, x: otherX })), { name: 'PrivateKeyError', message: /JWK is corrupt/ });
  t.equal(loadPrivateKey(ed.privateKey), ed.privateKey, 'an Ed25519 KeyObject is used as it is');
});
