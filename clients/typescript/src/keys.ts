// The public forms of a signing key, and new key pairs. The gateway registers a service account's
// key as an OpenSSH "ssh-ed25519" line (RFC 8709); SPKI PEM is what openssl and most libraries write.
import { createPublicKey, generateKeyPairSync, KeyObject } from 'node:crypto';
import { loadPrivateKey, PrivateKeyError, type PrivateKeyInput } from './private-key.js';
import { ed25519PublicBlob } from './ssh-wire.js';

function publicKeyOf(key: PrivateKeyInput): KeyObject {
  if (key instanceof KeyObject && key.type === 'public') {
    if (key.asymmetricKeyType !== 'ed25519') throw new PrivateKeyError(`the key is ${key.asymmetricKeyType ?? 'not asymmetric'}, not Ed25519`);
    return key;
  }
  return createPublicKey(loadPrivateKey(key));
}

/** The 32 raw bytes of an Ed25519 public key (given as a public KeyObject, or any private key form). */
export function rawPublicKey(key: PrivateKeyInput): Buffer {
  const { x } = publicKeyOf(key).export({ format: 'jwk' });
  return Buffer.from(x!, 'base64url');
}

/** The line a service account is registered with: "ssh-ed25519 <base64> [comment]". */
export function sshPublicKeyLine(key: PrivateKeyInput, comment?: string): string {
  const line = `ssh-ed25519 ${ed25519PublicBlob(rawPublicKey(key)).toString('base64')}`;
  return comment ? `${line} ${comment}` : line;
}

/** The public key as SPKI PEM ("-----BEGIN PUBLIC KEY-----"), as `openssl pkey -pubout` writes it. */
export function publicKeyPem(key: PrivateKeyInput): string {
  return publicKeyOf(key).export({ format: 'pem', type: 'spki' }).toString();
}

/** A new key pair: the private key as PKCS#8 PEM (readable by openssl and Python), the public key as an ssh line and as SPKI PEM. */
export function generateSigningKey(comment?: string): { privateKeyPem: string; publicKeyLine: string; publicKeyPem: string } {
  const { privateKey } = generateKeyPairSync('ed25519');
  return {
    privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    publicKeyLine: sshPublicKeyLine(privateKey, comment),
    publicKeyPem: publicKeyPem(privateKey),
  };
}
