// The public key a service account is created with, from --public-key or --public-key-file.
// A private key given by mistake is refused here, before anything is sent: once uploaded it would
// sit in the admin API's logs and store, and would have to be treated as leaked.
import { readFileSync } from 'node:fs';
import { CliError, usageError } from './cli-error.js';

/** PEM private keys of every kind: PKCS#8, encrypted PKCS#8, OpenSSH, and the RSA/EC/DSA legacy forms. */
const PEM_PRIVATE_KEY = /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----/;
const PUTTY_PRIVATE_KEY = /^PuTTY-User-Key-File-\d+:/m;
/** ssh-keygen's one-line public key forms, sent as the trimmed line. */
const SSH_PUBLIC_LINE = /^\s*(?:ssh-|ecdsa-sha2-|sk-)/;

/** A JWK (or a JWKS holding one) with private members: "d" for OKP, EC and RSA keys, "k" for a secret key. */
function isPrivateJwk(text: string): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return false;
  }
  const keys =
    parsed !== null && typeof parsed === 'object' && Array.isArray((parsed as { keys?: unknown }).keys) ? (parsed as { keys: unknown[] }).keys : [parsed];
  return keys.some((key) => key !== null && typeof key === 'object' && ('d' in key || ((key as { kty?: unknown }).kty === 'oct' && 'k' in key)));
}

export function isPrivateKey(text: string): boolean {
  return PEM_PRIVATE_KEY.test(text) || PUTTY_PRIVATE_KEY.test(text) || isPrivateJwk(text);
}

function readKeyFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const reasons: Record<string, string> = { ENOENT: 'no such file', EACCES: 'permission denied', EISDIR: 'it is a directory' };
    const code = (error as NodeJS.ErrnoException).code ?? '';
    throw new CliError(`cannot read --public-key-file ${file}: ${reasons[code] ?? (error as Error).message}`);
  }
}

/**
 * The `public_key` to send. An ssh file is sent as its one line (as the API has always taken it);
 * other forms (SPKI PEM, JWK) pass through unchanged, for the API to accept or explain.
 */
export function publicKeyFromOptions(values: Record<string, unknown>): string {
  const inline = values['public-key'];
  const file = values['public-key-file'];
  if (typeof inline === 'string' && typeof file === 'string') throw usageError('give --public-key or --public-key-file, not both');
  if (typeof inline === 'string') {
    if (isPrivateKey(inline))
      throw usageError('--public-key holds a private key; nothing was sent. Give the public key (the .pub file) and keep the private key secret.');
    return inline;
  }
  if (typeof file !== 'string') throw usageError('--public-key "ssh-ed25519 ..." or --public-key-file FILE.pub is required');
  const text = readKeyFile(file);
  if (isPrivateKey(text))
    throw usageError(`${file} is a private key; nothing was sent. Give the public key (e.g. ${file}.pub) and keep the private key secret.`);
  if (text.trim() === '') throw usageError(`${file} is empty`);
  return SSH_PUBLIC_LINE.test(text) ? text.trim() : text;
}
