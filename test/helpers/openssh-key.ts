// Writes unencrypted "openssh-key-v1" private key files (PROTOCOL.key in the OpenSSH sources), as
// `ssh-keygen -t ed25519 -N ''` does, so tests can make them from any seed without ssh-keygen and
// vary every field a reader must check.
import { createPrivateKey, createPublicKey } from 'node:crypto';

function sshString(value: Buffer | string): Buffer {
  const bytes = typeof value === 'string' ? Buffer.from(value, 'latin1') : value;
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

function uint32(value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value >>> 0);
  return bytes;
}

/** The 32-byte Ed25519 public key of a 32-byte seed. */
export function publicKeyOfSeed(seed: Uint8Array): Buffer {
  const key = createPrivateKey({ key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]), format: 'der', type: 'pkcs8' });
  return Buffer.from(createPublicKey(key).export({ format: 'jwk' }).x!, 'base64url');
}

/** The PKCS#8 PEM of a seed: the same key in the form openssl writes. */
export function pkcs8PemOfSeed(seed: Uint8Array): string {
  const der = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]);
  return `-----BEGIN PRIVATE KEY-----\n${der.toString('base64')}\n-----END PRIVATE KEY-----\n`;
}

export interface OpenSshFields {
  comment?: string;
  checkint?: number;
  /** Defaults to a second copy of checkint (a reader must refuse a difference). */
  checkint2?: number;
  keyType?: string;
}

/** The binary body of the file (before base64 and the PEM-like armour). */
export function openSshBlob(seed: Uint8Array, fields: OpenSshFields = {}): Buffer {
  const publicKey = publicKeyOfSeed(seed);
  const type = fields.keyType ?? 'ssh-ed25519';
  const checkint = fields.checkint ?? 0x12345678;
  const publicBlob = Buffer.concat([sshString(type), sshString(publicKey)]);
  let secret = Buffer.concat([
    uint32(checkint),
    uint32(fields.checkint2 ?? checkint),
    sshString(type),
    sshString(publicKey),
    sshString(Buffer.concat([seed, publicKey])),
    sshString(fields.comment ?? 'test@example'),
  ]);
  const padding: number[] = [];
  for (let i = 1; (secret.length + padding.length) % 8 !== 0; i++) padding.push(i);
  secret = Buffer.concat([secret, Buffer.from(padding)]);
  return Buffer.concat([
    Buffer.from('openssh-key-v1\0', 'latin1'),
    sshString('none'),
    sshString('none'),
    sshString(''),
    uint32(1),
    sshString(publicBlob),
    sshString(secret),
  ]);
}

/** Armours a blob as ssh-keygen does: base64 in lines of 70 characters. */
export function armourOpenSsh(blob: Buffer, eol = '\n'): string {
  const lines = blob.toString('base64').match(/.{1,70}/g) ?? [];
  return ['-----BEGIN OPENSSH PRIVATE KEY-----', ...lines, '-----END OPENSSH PRIVATE KEY-----', ''].join(eol);
}

export function openSshPrivateKey(seed: Uint8Array, fields: OpenSshFields = {}): string {
  return armourOpenSsh(openSshBlob(seed, fields));
}
