// The public_key of a service account in any form clients commonly hold: an OpenSSH line, a PEM
// SubjectPublicKeyInfo, or a JWK (a JSON object, or its text). Each becomes the one stored form,
// the ssh-ed25519 line, after the same strict Ed25519 checks. A private key is recognised before
// anything else is read, so the 400 can say what it is without ever repeating it.
import { isObject, JWK_SHAPE, parseJwkPublicKey, parseJwkText } from './jwk-public-key.js';
import { PrivateKeyGivenError, PublicKeyError } from './public-key-errors.js';
import { parseSshEd25519PublicKey, type SshEd25519Key } from './ssh-public-key.js';
import { parsePemPublicKey } from './spki-public-key.js';

/** Whatever form it was given in, a public key is stored as its ssh-ed25519 line. */
export type ParsedPublicKey = SshEd25519Key;

export const ACCEPTED_PUBLIC_KEY_FORMS = `an "ssh-ed25519 <base64> [comment]" line, a PEM "-----BEGIN PUBLIC KEY-----" block, or a JWK ${JWK_SHAPE} (as an object or JSON text)`;

/** Far above any Ed25519 key in any form; bounds the work spent on one value. */
const MAX_TEXT = 8192;

const PEM_PRIVATE = /-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY)-----/;

/** What kind of private key the text is, in words for the message; undefined when it is none. */
function privateKeyKind(text: string): string | undefined {
  const pem = PEM_PRIVATE.exec(text)?.[1];
  if (pem === 'OPENSSH PRIVATE KEY') return 'an OpenSSH private key; give the line of its .pub file (ssh-keygen -y -f KEY prints it)';
  if (pem !== undefined) return `a private key (PEM "${pem}"); give the public key (openssl pkey -in KEY -pubout prints it)`;
  if (/^PuTTY-User-Key-File-\d+:/.test(text)) return 'a PuTTY private key; give the public key (puttygen KEY -O public-openssh prints it)';
  return undefined;
}

function parseText(text: string): SshEd25519Key {
  if (text.startsWith('{')) return parseJwkText(text);
  if (text.startsWith('-----BEGIN ')) return parsePemPublicKey(text);
  if (text.startsWith('---- BEGIN SSH2 PUBLIC KEY ----'))
    throw new PublicKeyError('is an RFC 4716 SSH2 public key; convert it to a line with ssh-keygen -i -f FILE');
  if (/^(ssh-|ecdsa-|sk-)/.test(text)) return parseSshEd25519PublicKey(text);
  throw new PublicKeyError(`is not a public key in a form the gateway reads; give ${ACCEPTED_PUBLIC_KEY_FORMS}`);
}

/** The stored form of a public_key value; PublicKeyError (PrivateKeyGivenError for a private key) saying why not. */
export function parsePublicKeyInput(value: unknown): ParsedPublicKey {
  if (isObject(value)) return parseJwkPublicKey(value);
  if (typeof value !== 'string') throw new PublicKeyError(`is required: ${ACCEPTED_PUBLIC_KEY_FORMS}`);
  const text = value.trim();
  if (text === '') throw new PublicKeyError(`is empty; give ${ACCEPTED_PUBLIC_KEY_FORMS}`);
  const privateKind = privateKeyKind(text);
  if (privateKind !== undefined) throw new PrivateKeyGivenError(`is ${privateKind}, and keep the private key secret`);
  if (text.length > MAX_TEXT) throw new PublicKeyError(`is longer than ${MAX_TEXT} characters; an Ed25519 public key is far shorter`);
  return parseText(text);
}
