// Property tests of the public_key parsers (ssh line, PEM SubjectPublicKeyInfo, JWK): whatever the
// value, the outcome is a usable key or a PublicKeyError with a message; a private key is always a
// PrivateKeyGivenError whose message repeats none of it; DER is accepted in exactly one encoding;
// and the three forms of one key give the same stored line and fingerprint.
import { createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import fc from 'fast-check';
import t from 'tap';
import { parsePublicKeyInput, type ParsedPublicKey } from '../../gateway/service-accounts/public-key-input.js';
import { PrivateKeyGivenError, PublicKeyError } from '../../gateway/service-accounts/public-key-errors.js';
import { ed25519KeyFromSpki } from '../../gateway/service-accounts/spki-public-key.js';
import { parseSshEd25519PublicKey } from '../../gateway/service-accounts/ssh-public-key.js';
import { ed25519PublicKeyProblem } from '../../gateway/signing/ed25519.js';
import { sshPublicKeyLine } from '../../gateway/signing/index.js';
import { ed25519KeyCandidates, holds } from '../helpers/property.js';

/** The DER of every Ed25519 SubjectPublicKeyInfo starts with these 12 bytes (RFC 8410 section 4). */
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

type Outcome = ParsedPublicKey | { refused: string; private: boolean };

/** The parse result, or the refusal; anything but a PublicKeyError with a message fails the property. */
function outcome(value: unknown): Outcome {
  try {
    return parsePublicKeyInput(value);
  } catch (error) {
    if (!(error instanceof PublicKeyError)) throw error;
    if (error.message.length === 0) throw new Error('a PublicKeyError without a message', { cause: error });
    return { refused: error.message, private: error instanceof PrivateKeyGivenError };
  }
}

const accepted = (o: Outcome): o is ParsedPublicKey => !('refused' in o);

const pem = (label: string, der: Buffer) =>
  `-----BEGIN ${label}-----\n${der
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .replace(/\n$/, '')}\n-----END ${label}-----\n`;
const spkiDer = (key: KeyObject) => key.export({ format: 'der', type: 'spki' });
const keys = Array.from({ length: 20 }, () => generateKeyPairSync('ed25519'));
const anyKey = fc.constantFrom(...keys);

t.test('any JSON value or text never fails with anything but PublicKeyError', async (t) => {
  const prefixes = fc.constantFrom(
    '',
    '{',
    '{"kty":"OKP",',
    '-----BEGIN PUBLIC KEY-----\n',
    '-----BEGIN ',
    'ssh-ed25519 ',
    '---- BEGIN SSH2 PUBLIC KEY ----',
    'PuTTY-User-Key-File-3: ',
  );
  const value = fc.oneof(
    fc.anything({ maxDepth: 3 }),
    fc.jsonValue({ maxDepth: 3 }),
    fc.tuple(prefixes, fc.string({ maxLength: 200 })).map(([prefix, rest]) => prefix + rest),
    fc.tuple(prefixes, fc.string({ unit: 'binary', maxLength: 200 })).map(([prefix, rest]) => prefix + rest),
    fc.jsonValue({ maxDepth: 3 }).map((json) => JSON.stringify(json) ?? ''),
    fc.string({ maxLength: 20 }).map((s) => s.repeat(500)),
  );
  holds(
    t,
    fc.property(value, (input) => void outcome(input)),
    2000,
  );
});

t.test('PEM around arbitrary or mutated DER: a refusal, or exactly the one DER encoding of an Ed25519 key', async (t) => {
  const mutated = fc
    .tuple(
      anyKey,
      fc.array(fc.tuple(fc.nat(60), fc.integer({ min: 0, max: 255 })), { maxLength: 3 }),
      fc.integer({ min: -5, max: 5 }),
      fc.uint8Array({ maxLength: 4 }),
    )
    .map(([pair, edits, cut, extra]) => {
      const der = Buffer.from(spkiDer(pair.publicKey));
      for (const [at, byte] of edits) if (at < der.length) der[at] = byte;
      const cutDer = cut < 0 ? der.subarray(0, der.length + cut) : der;
      return cut > 0 ? Buffer.concat([cutDer, Buffer.from(extra)]) : cutDer;
    });
  // Well-formed TLVs with random tags and contents, nested two deep.
  const tlv = (tag: fc.Arbitrary<number>, content: fc.Arbitrary<Buffer>) =>
    fc.tuple(tag, content).map(([tg, c]) => Buffer.concat([Buffer.from([tg]), derLength(c.length), c]));
  const leaf = tlv(
    fc.constantFrom(0x03, 0x06, 0x05, 0x04, 0x02),
    fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b)),
  );
  const structured = tlv(
    fc.constantFrom(0x30, 0x31),
    fc
      .array(
        tlv(
          fc.constantFrom(0x30, 0x03),
          fc.array(leaf, { maxLength: 3 }).map((l) => Buffer.concat(l)),
        ),
        { maxLength: 3 },
      )
      .map((l) => Buffer.concat(l)),
  );
  const der = fc.oneof(
    fc.uint8Array({ maxLength: 80 }).map((b) => Buffer.from(b)),
    mutated,
    structured,
  );
  let accepts = 0;
  holds(
    t,
    fc.property(der, fc.constantFrom('PUBLIC KEY', 'CERTIFICATE', 'RSA PUBLIC KEY', 'X'), (bytes, label) => {
      const result = outcome(pem(label, bytes));
      if (!accepted(result)) return true;
      accepts++;
      // Strict: the only accepted DER is the exact RFC 8410 encoding, which node:crypto reads as the same key.
      const x = createPublicKey({ key: bytes, format: 'der', type: 'spki' }).export({ format: 'jwk' }).x;
      return (
        label === 'PUBLIC KEY' &&
        bytes.length === 44 &&
        bytes.subarray(0, 12).equals(SPKI_PREFIX) &&
        result.raw.equals(bytes.subarray(12)) &&
        x === result.raw.toString('base64url')
      );
    }),
    1500,
  );
  t.ok(accepts > 0, `some were genuine keys and accepted (${accepts})`);
});

t.test('ed25519KeyFromSpki alone: arbitrary bytes give 32 key bytes or a PublicKeyError', async (t) => {
  holds(
    t,
    fc.property(
      fc.uint8Array({ maxLength: 60 }).map((b) => Buffer.from(b)),
      fc.uint8Array({ minLength: 32, maxLength: 32 }),
      fc.boolean(),
      (bytes, key, prefixed) => {
        const der = prefixed ? Buffer.concat([SPKI_PREFIX, key]) : bytes;
        try {
          const raw = ed25519KeyFromSpki(der);
          return der.length === 44 && der.subarray(0, 12).equals(SPKI_PREFIX) && raw.equals(der.subarray(12));
        } catch (error) {
          return error instanceof PublicKeyError && error.message.length > 0 && !(prefixed && der.length === 44);
        }
      },
    ),
    1500,
  );
});

t.test('JWK-shaped objects, as objects and as JSON text, agree and fail only with PublicKeyError', async (t) => {
  // Each member is mostly right, so that whole usable keys come up too, not only refusals.
  const mostly = <T>(right: fc.Arbitrary<T>, ...wrong: fc.Arbitrary<unknown>[]) =>
    fc.oneof({ arbitrary: right, weight: 6 }, ...wrong.map((arbitrary) => ({ arbitrary, weight: 1 })));
  const genuineX = anyKey.map(({ publicKey }) => publicKey.export({ format: 'jwk' }).x!);
  const jwk = fc.record(
    {
      kty: mostly(fc.constant('OKP'), fc.constantFrom('EC', 'RSA', 'oct'), fc.anything({ maxDepth: 1 })),
      crv: mostly(fc.constant('Ed25519'), fc.constantFrom('Ed448', 'X25519'), fc.anything({ maxDepth: 1 })),
      x: mostly(
        genuineX,
        fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b).toString('base64url')),
        fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('base64')),
        fc.string({ maxLength: 50 }),
        fc.anything({ maxDepth: 1 }),
      ),
      alg: mostly(fc.constantFrom('EdDSA', 'Ed25519'), fc.constant('ES256'), fc.anything({ maxDepth: 1 })),
      use: mostly(fc.constant('sig'), fc.constant('enc'), fc.anything({ maxDepth: 1 })),
      key_ops: mostly(fc.constant(['verify']), fc.array(fc.constantFrom('verify', 'sign'), { maxLength: 2 }), fc.anything({ maxDepth: 1 })),
      d: fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('base64url')),
      kid: fc.string({ maxLength: 20 }),
    },
    { requiredKeys: ['kty', 'crv', 'x'] },
  );
  const sometimesIncomplete = fc.oneof(
    jwk,
    jwk.chain((value) => fc.subarray(Object.keys(value)).map((keep) => Object.fromEntries(Object.entries(value).filter(([name]) => keep.includes(name))))),
  );
  let accepts = 0;
  holds(
    t,
    fc.property(sometimesIncomplete, (value: Record<string, unknown>) => {
      const asObject = outcome(value);
      const asText = outcome(JSON.stringify(value));
      if ('d' in value && (accepted(asObject) || !asObject.private)) return false;
      if (accepted(asObject) !== accepted(asText)) return false;
      if (!accepted(asObject) || !accepted(asText)) return true;
      accepts++;
      return asObject.line === asText.line && value.kty === 'OKP' && value.crv === 'Ed25519' && asObject.raw.toString('base64url') === value.x;
    }),
    2000,
  );
  t.ok(accepts > 0, `some were usable public JWKs and accepted (${accepts})`);
});

t.test('the three forms of a genuine key give the stored line and fingerprint of its ssh form', async (t) => {
  holds(
    t,
    fc.property(anyKey, fc.constantFrom('\n', '\r\n'), fc.boolean(), ({ publicKey }, newline, asText) => {
      const ssh = parseSshEd25519PublicKey(sshPublicKeyLine(publicKey));
      const jwk = publicKey.export({ format: 'jwk' });
      const forms = [
        outcome(pem('PUBLIC KEY', spkiDer(publicKey)).replace(/\n/g, newline)),
        outcome(asText ? JSON.stringify(jwk) : jwk),
        outcome(publicKey.export({ format: 'pem', type: 'spki' })),
      ];
      return forms.every((o) => accepted(o) && o.line === ssh.line && o.fingerprint === ssh.fingerprint && o.raw.equals(ssh.raw));
    }),
    200,
  );
});

t.test('every key a strict verifier would refuse is refused in every form, with the same reason', async (t) => {
  const raw = ed25519KeyCandidates;
  let refused = 0;
  holds(
    t,
    fc.property(raw, (bytes) => {
      const key = Buffer.from(bytes);
      const problem = ed25519PublicKeyProblem(key);
      const forms = [outcome(pem('PUBLIC KEY', Buffer.concat([SPKI_PREFIX, key]))), outcome({ kty: 'OKP', crv: 'Ed25519', x: key.toString('base64url') })];
      if (problem === undefined) return forms.every((o) => accepted(o) && o.raw.equals(key));
      refused++;
      return forms.every((o) => !accepted(o) && o.refused === `is not a usable Ed25519 public key: ${problem}`);
    }),
    600,
  );
  t.ok(refused > 0, `some keys were refused (${refused})`);
});

t.test('a private key in any form is refused as one, and its material is never repeated', async (t) => {
  const texts = (privateKey: KeyObject): string[] => [
    privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    privateKey.export({ format: 'pem', type: 'pkcs8', cipher: 'aes-256-cbc', passphrase: 'secret' }).toString(),
    JSON.stringify(privateKey.export({ format: 'jwk' })),
  ];
  holds(
    t,
    fc.property(anyKey, fc.nat(4), fc.constantFrom('', '  ', '\n', '\r\n\t'), ({ privateKey }, pick, around) => {
      const jwk = privateKey.export({ format: 'jwk' });
      const values: unknown[] = [...texts(privateKey).map((text) => `${around}${text}${around}`), jwk, { keys: [jwk] }];
      const value = values[pick % values.length];
      const result = outcome(value);
      if (accepted(result) || !result.private) return false;
      return !result.refused.includes(jwk.d!) && !/[A-Za-z0-9+/]{40}/.test(result.refused);
    }),
    300,
  );
});

function derLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  return length < 0x100 ? Buffer.from([0x81, length]) : Buffer.from([0x82, length >> 8, length & 0xff]);
}
