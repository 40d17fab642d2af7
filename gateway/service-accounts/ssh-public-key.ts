// The OpenSSH form of a service account's public key, which is also the one stored: parses
// "ssh-ed25519 <base64> [comment]", with the base64 holding exactly the OpenSSH wire blob (RFC
// 8709): string "ssh-ed25519", string of 32 key bytes, nothing after. Each failure says what is
// wrong, for the admin API's 400 message. Other forms (PEM, JWK) end in canonicalEd25519Key too.
import { createHash } from 'node:crypto';
import { ed25519PublicKeyProblem } from '../signing/ed25519.js';
import { ed25519PublicBlob, SshReader } from '../signing/ssh-wire.js';
import { PublicKeyError } from './public-key-errors.js';

export { PublicKeyError } from './public-key-errors.js';

export interface SshEd25519Key {
  /** The 32 raw key bytes. */
  raw: Buffer;
  /** SHA256:<unpadded base64 of the blob's SHA-256>, as `ssh-keygen -lf` prints it. */
  fingerprint: string;
  /** The line, trimmed, with single spaces between its parts. */
  line: string;
}

const MAX_LINE = 2000;
const CANONICAL_BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

export function sshFingerprint(blob: Buffer): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

export function parseSshEd25519PublicKey(text: string): SshEd25519Key {
  const line = text.trim();
  if (line.length === 0) throw new PublicKeyError('is empty; expected "ssh-ed25519 <base64> [comment]"');
  if (line.length > MAX_LINE) throw new PublicKeyError(`is longer than ${MAX_LINE} characters`);
  if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(line)) throw new PublicKeyError('must be a single line without control characters');
  const [type = '', data = '', ...comment] = line.split(/[ \t]+/);
  if (type !== 'ssh-ed25519') {
    const known = /^(ssh-|ecdsa-|sk-)/.test(type) ? `a ${type} key` : 'not an OpenSSH public key line';
    throw new PublicKeyError(`is ${known}; only ssh-ed25519 keys are accepted ("ssh-ed25519 <base64> [comment]")`);
  }
  if (data === '') throw new PublicKeyError('has no key data after "ssh-ed25519"');
  if (!CANONICAL_BASE64.test(data) || data.length % 4 !== 0) throw new PublicKeyError('key data is not valid base64');
  const blob = Buffer.from(data, 'base64');
  if (blob.toString('base64') !== data) throw new PublicKeyError('key data is not canonical base64');
  const reader = new SshReader(blob);
  let innerType: string;
  let raw: Buffer;
  try {
    innerType = reader.text();
    raw = reader.string();
  } catch (error) {
    throw new PublicKeyError(`key data is truncated: ${(error as Error).message}`);
  }
  if (innerType !== 'ssh-ed25519') throw new PublicKeyError(`key data is for ${JSON.stringify(innerType)}, but the line says ssh-ed25519`);
  if (raw.length !== 32) throw new PublicKeyError(`holds ${raw.length} key bytes; an Ed25519 key has exactly 32`);
  if (reader.remaining !== 0) throw new PublicKeyError(`key data has ${reader.remaining} unexpected trailing bytes`);
  return canonicalEd25519Key(raw, comment);
}

/**
 * 32 raw key bytes as the stored form, whatever form they came in; refused (PublicKeyError) unless
 * usable: small-order and non-canonical keys would let anyone forge this account's signatures.
 */
export function canonicalEd25519Key(raw: Uint8Array, comment: readonly string[] = []): SshEd25519Key {
  const problem = ed25519PublicKeyProblem(raw);
  if (problem !== undefined) throw new PublicKeyError(`is not a usable Ed25519 public key: ${problem}`);
  const blob = ed25519PublicBlob(Buffer.from(raw));
  return { raw: Buffer.from(raw), fingerprint: sshFingerprint(blob), line: ['ssh-ed25519', blob.toString('base64'), ...comment].join(' ') };
}
