// Reads the raw Ed25519 seed from an unencrypted "openssh-key-v1" file, the format
// `ssh-keygen -t ed25519` writes (PROTOCOL.key in the OpenSSH sources). Node cannot read it.
import { PrivateKeyError } from './errors.js';
import { SshReader } from './ssh-wire.js';

const MAGIC = Buffer.from('openssh-key-v1\0', 'latin1');
const PEM = /-----BEGIN OPENSSH PRIVATE KEY-----([\s\S]*?)-----END OPENSSH PRIVATE KEY-----/;

export function isOpenSshPrivateKey(text: string): boolean {
  return PEM.test(text);
}

/** The 32-byte seed and 32-byte public key of the file's only key. */
export function readOpenSshEd25519(text: string): { seed: Buffer; publicKey: Buffer } {
  const body = PEM.exec(text)?.[1];
  if (body === undefined) throw new PrivateKeyError('not an OpenSSH private key file');
  const bytes = Buffer.from(body.replace(/\s+/g, ''), 'base64');
  if (!bytes.subarray(0, MAGIC.length).equals(MAGIC)) throw new PrivateKeyError('not an openssh-key-v1 file');
  const reader = new SshReader(bytes.subarray(MAGIC.length));
  const cipher = reader.text();
  const kdf = reader.text();
  reader.string(); // kdf options
  if (cipher !== 'none' || kdf !== 'none')
    throw new PrivateKeyError('the key file is encrypted with a passphrase; decrypt it first (ssh-keygen -p -N "" -f FILE)');
  if (reader.uint32() !== 1) throw new PrivateKeyError('the key file must hold exactly one key');
  reader.string(); // public key blob, repeated inside the private section
  const secret = new SshReader(reader.string());
  if (secret.uint32() !== secret.uint32()) throw new PrivateKeyError('the key file is corrupt (check integers differ)');
  const type = secret.text();
  if (type !== 'ssh-ed25519') throw new PrivateKeyError(`the key is ${JSON.stringify(type.slice(0, 40))}, not ssh-ed25519`);
  const publicKey = secret.string();
  const privateKey = secret.string(); // seed || public key
  if (publicKey.length !== 32 || privateKey.length !== 64 || !privateKey.subarray(32).equals(publicKey))
    throw new PrivateKeyError('the ed25519 key in the file is malformed');
  return { seed: Buffer.from(privateKey.subarray(0, 32)), publicKey: Buffer.from(publicKey) };
}
