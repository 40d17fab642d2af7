// Reading the Ed25519 private key a client signs with, from whatever the user has at hand: PKCS#8
// PEM (openssl genpkey -algorithm ed25519, gatewayctl keygen), an unencrypted OpenSSH key file
// (ssh-keygen -t ed25519), a private JWK, or a KeyObject. The text is outside input (a file the
// user points at), so every failure is one PrivateKeyError saying what was expected.
import { createPrivateKey, createPublicKey, KeyObject, type JsonWebKey } from 'node:crypto';
import { PrivateKeyError } from './errors.js';
import { isOpenSshPrivateKey, readOpenSshEd25519 } from './openssh-private-key.js';

export { PrivateKeyError };

/** Key text (string or the bytes of a key file) or a node:crypto KeyObject. */
export type PrivateKeyInput = KeyObject | string | Uint8Array;

const EXPECTED = 'expected an Ed25519 private key as PKCS#8 PEM ("-----BEGIN PRIVATE KEY-----"), an unencrypted OpenSSH key file or a private JWK';

/** The KeyObject itself when it is an Ed25519 private key. */
export function requireEd25519PrivateKey(key: KeyObject): KeyObject {
  if (key.type !== 'private') throw new PrivateKeyError(`the key is a ${key.type} key; signing needs the private key`);
  if (key.asymmetricKeyType !== 'ed25519') throw new PrivateKeyError(`the key is ${key.asymmetricKeyType ?? 'not asymmetric'}, not Ed25519`);
  return key;
}

/** PKCS#8 DER of an Ed25519 key up to its 32-byte seed (RFC 8410 section 7). */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** Refuses a key file whose stated public key is not its private key's own (node:crypto would sign with the private one). */
function checkPublicHalf(key: KeyObject, stated: Buffer, form: string): KeyObject {
  const derived = Buffer.from(createPublicKey(key).export({ format: 'jwk' }).x ?? '', 'base64url');
  if (!derived.equals(stated)) throw new PrivateKeyError(`the ${form} is corrupt: its public key does not belong to its private key`);
  return key;
}

function fromOpenSsh(text: string): KeyObject {
  const { seed, publicKey } = readOpenSshEd25519(text);
  return checkPublicHalf(createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' }), publicKey, 'OpenSSH key file');
}

function fromJwk(text: string): KeyObject {
  const jwk = JSON.parse(text) as JsonWebKey;
  const key = requireEd25519PrivateKey(createPrivateKey({ key: jwk, format: 'jwk' }));
  return typeof jwk.x === 'string' ? checkPublicHalf(key, Buffer.from(jwk.x, 'base64url'), 'JWK') : key;
}

function fromText(text: string): KeyObject {
  if (isOpenSshPrivateKey(text)) return fromOpenSsh(text);
  if (text.startsWith('{')) return fromJwk(text);
  if (text.includes('-----BEGIN ENCRYPTED PRIVATE KEY-----'))
    throw new PrivateKeyError('the key is encrypted with a passphrase; decrypt it first (openssl pkey -in FILE -out PLAIN.pem)');
  if (!text.includes('-----BEGIN')) throw new PrivateKeyError(EXPECTED);
  return createPrivateKey({ key: text, format: 'pem' });
}

export function loadPrivateKey(input: PrivateKeyInput): KeyObject {
  if (input instanceof KeyObject) return requireEd25519PrivateKey(input);
  const text = (typeof input === 'string' ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength).toString('utf8')).trim();
  let key: KeyObject;
  try {
    key = fromText(text);
  } catch (error) {
    if (error instanceof PrivateKeyError) throw error;
    throw new PrivateKeyError(`cannot read the private key (${error instanceof Error ? error.message : String(error)}); ${EXPECTED}`);
  }
  return requireEd25519PrivateKey(key);
}
