// A shared secret key kept in a file (GATEWAY_CLIENT_SECRET_HASH_KEY_FILE): every instance reads the
// same bytes, so the key survives the loss of the store. Hex or base64url, at least 32 bytes.
import { readFileSync } from 'node:fs';

export const MIN_SECRET_KEY_BYTES = 32;

/** The key's bytes; throws an Error saying what is wrong (never quoting the file's content). */
export function readSecretKeyFile(file: string): Buffer {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw new Error(`${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, { cause: error });
  }
  let key: Buffer;
  if (/^(?:[0-9a-fA-F]{2})+$/.test(text)) key = Buffer.from(text, 'hex');
  else if (/^[A-Za-z0-9_-]+={0,2}$/.test(text)) key = Buffer.from(text, 'base64url');
  else throw new Error(`${file} must hold one key in hex or base64url (e.g. openssl rand -hex 32)`);
  if (key.length < MIN_SECRET_KEY_BYTES) throw new Error(`${file} holds ${key.length} bytes; at least ${MIN_SECRET_KEY_BYTES} random bytes are required (openssl rand -hex 32)`);
  return key;
}
