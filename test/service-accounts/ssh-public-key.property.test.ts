// Property tests of the ssh-ed25519 line parser: whatever the input, it either returns a usable key
// or throws PublicKeyError with a message, and genuine keys always round-trip.
import { createHash, generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import t from 'tap';
import { parseSshEd25519PublicKey, PublicKeyError, type SshEd25519Key } from '../../gateway/service-accounts/ssh-public-key.js';
import { ed25519PublicKeyProblem } from '../../gateway/signing/ed25519.js';
import { sshPublicKeyLine } from '../../gateway/signing/keys.js';
import { ed25519PublicBlob, sshString } from '../../gateway/signing/ssh-wire.js';
import { ed25519KeyCandidates, holds } from '../helpers/property.js';

/** The parse result, or the PublicKeyError message; anything else thrown fails the property. */
function parseOutcome(line: string): SshEd25519Key | string {
  try {
    return parseSshEd25519PublicKey(line);
  } catch (error) {
    if (!(error instanceof PublicKeyError)) throw error;
    if (error.message.length === 0) throw new Error('a PublicKeyError without a message', { cause: error });
    return error.message;
  }
}

const line = (blob: Buffer, comment = '') => `ssh-ed25519 ${blob.toString('base64')}${comment ? ` ${comment}` : ''}`;
const comment = fc.stringMatching(/^[A-Za-z0-9@._-]{0,30}$/);

t.test('arbitrary text never fails with anything but PublicKeyError', async (t) => {
  const text = fc.oneof(
    fc.string({ maxLength: 300 }),
    fc.string({ unit: 'binary', maxLength: 300 }),
    fc.string({ maxLength: 200 }).map((rest) => `ssh-ed25519 ${rest}`),
    fc.base64String({ maxLength: 200 }).map((data) => `ssh-ed25519 ${data}`),
    fc
      .tuple(fc.constantFrom('', ' ', '\t', '  \t '), fc.string({ maxLength: 50 }), fc.base64String({ maxLength: 120 }))
      .map(([space, junk, data]) => `${space}ssh-ed25519${space || ' '}${data}${junk}`),
  );
  holds(
    t,
    fc.property(text, (input) => void parseOutcome(input)),
    1000,
  );
});

t.test('arbitrary bytes inside the blob never fail with anything but PublicKeyError', async (t) => {
  const blob = fc.oneof(
    fc.uint8Array({ maxLength: 120 }).map((bytes) => Buffer.from(bytes)),
    fc
      .tuple(fc.uint8Array({ maxLength: 64 }), fc.uint8Array({ maxLength: 8 }))
      .map(([key, trailing]) => Buffer.concat([sshString('ssh-ed25519'), sshString(Buffer.from(key)), Buffer.from(trailing)])),
    fc.tuple(fc.nat(0xffffffff), fc.uint8Array({ maxLength: 40 })).map(([length, rest]) => {
      const prefix = Buffer.alloc(4);
      prefix.writeUInt32BE(length);
      return Buffer.concat([sshString('ssh-ed25519'), prefix, Buffer.from(rest)]);
    }),
  );
  holds(
    t,
    fc.property(blob, comment, (bytes, note) => void parseOutcome(line(bytes, note))),
    1000,
  );
});

t.test('genuine keys always parse and round-trip their fingerprint', async (t) => {
  const keys = Array.from({ length: 20 }, () => generateKeyPairSync('ed25519').publicKey);
  holds(
    t,
    fc.property(fc.constantFrom(...keys), comment, fc.constantFrom(' ', '  ', '\t'), (key, note, space) => {
      const written = sshPublicKeyLine(key, note || undefined);
      const parsed = parseSshEd25519PublicKey(`${space}${written.replace(' ', space)}\n`);
      const raw = Buffer.from(key.export({ format: 'jwk' }).x!, 'base64url');
      const blob = ed25519PublicBlob(raw);
      const fingerprint = `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
      const again = parseSshEd25519PublicKey(parsed.line);
      return (
        parsed.raw.equals(raw) &&
        parsed.line === written &&
        parsed.fingerprint === fingerprint &&
        again.fingerprint === fingerprint &&
        again.line === parsed.line
      );
    }),
    300,
  );
});

t.test('random 32-byte keys either parse or are refused saying why', async (t) => {
  const raw = ed25519KeyCandidates;
  let refused = 0;
  holds(
    t,
    fc.property(raw, (bytes) => {
      const outcome = parseOutcome(line(ed25519PublicBlob(Buffer.from(bytes))));
      const problem = ed25519PublicKeyProblem(bytes);
      if (typeof outcome === 'string') {
        refused++;
        return problem !== undefined && outcome === `is not a usable Ed25519 public key: ${problem}`;
      }
      return problem === undefined && outcome.raw.equals(bytes);
    }),
    600,
  );
  t.ok(refused > 0, `some keys were refused (${refused})`);
});
