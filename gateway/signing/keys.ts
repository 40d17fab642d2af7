// Ed25519 key handling for signers and verifiers, on node:crypto. Public keys are imported from
// their 32 raw bytes once and cached, so verifying a request never re-imports a key.
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { isOpenSshPrivateKey, readOpenSshEd25519 } from './openssh-private-key.js';
import { ed25519PublicBlob } from './ssh-wire.js';

const publicKeys = new Map<string, KeyObject>();
const MAX_CACHED_KEYS = 10_000;

/** A KeyObject for 32 raw Ed25519 public key bytes (given as bytes or base64url). */
export function ed25519PublicKey(raw: Uint8Array | string): KeyObject {
  const x = typeof raw === 'string' ? raw : Buffer.from(raw).toString('base64url');
  let key = publicKeys.get(x);
  if (!key) {
    if (Buffer.from(x, 'base64url').length !== 32) throw new Error('an Ed25519 public key is 32 bytes');
    key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
    if (publicKeys.size >= MAX_CACHED_KEYS) publicKeys.clear();
    publicKeys.set(x, key);
  }
  return key;
}

function requireEd25519(key: KeyObject): KeyObject {
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`the key is ${key.asymmetricKeyType ?? 'not asymmetric'}, not Ed25519`);
  return key;
}

/**
 * Reads an Ed25519 private key from PKCS#8 PEM (openssl genpkey -algorithm ed25519, gatewayctl
 * keygen), an OpenSSH key file (ssh-keygen -t ed25519, unencrypted) or a private JWK.
 */
export function loadPrivateKey(text: string): KeyObject {
  const trimmed = text.trim();
  if (isOpenSshPrivateKey(trimmed)) {
    const { seed, publicKey } = readOpenSshEd25519(trimmed);
    return createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', d: seed.toString('base64url'), x: publicKey.toString('base64url') }, format: 'jwk' });
  }
  if (trimmed.startsWith('{')) return requireEd25519(createPrivateKey({ key: JSON.parse(trimmed) as import('node:crypto').JsonWebKey, format: 'jwk' }));
  return requireEd25519(createPrivateKey(trimmed));
}

/** The 32 raw bytes of an Ed25519 public (or private) key. */
export function rawPublicKey(key: KeyObject): Buffer {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  const { x } = requireEd25519(publicKey).export({ format: 'jwk' });
  return Buffer.from(x!, 'base64url');
}

/** The authorized_keys line the gateway accepts: "ssh-ed25519 <base64> [comment]". */
export function sshPublicKeyLine(key: KeyObject, comment?: string): string {
  const line = `ssh-ed25519 ${ed25519PublicBlob(rawPublicKey(key)).toString('base64')}`;
  return comment ? `${line} ${comment}` : line;
}

/** A new key pair: the private key as PKCS#8 PEM (readable by openssl and Python), the public as an ssh line. */
export function generateSigningKey(comment?: string): { privateKeyPem: string; publicKeyLine: string } {
  const { privateKey } = generateKeyPairSync('ed25519');
  return { privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(), publicKeyLine: sshPublicKeyLine(privateKey, comment) };
}
