// One PEM block (RFC 7468): "-----BEGIN <label>-----", base64 lines, "-----END <label>-----", and
// nothing before or after. Strict: no headers, and canonical base64, so one key has one text.
import { PublicKeyError } from './public-key-errors.js';

export interface PemBlock {
  label: string;
  der: Buffer;
}

const BEGIN = /^-----BEGIN ([A-Z0-9]+(?: [A-Z0-9]+)*)-----$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export function readPemBlock(text: string): PemBlock {
  const lines = text
    .trim()
    .split(/\r?\n/)
    .map((line) => line.trimEnd());
  const label = BEGIN.exec(lines[0] ?? '')?.[1];
  if (label === undefined) throw new PublicKeyError('does not start with a PEM line "-----BEGIN <label>-----"');
  if (lines.length < 2 || lines[lines.length - 1] !== `-----END ${label}-----`) throw new PublicKeyError(`has no "-----END ${label}-----" line at its end`);
  const body = lines.slice(1, -1).join('');
  if (body === '') throw new PublicKeyError('is a PEM block with no data');
  if (!BASE64.test(body) || body.length % 4 !== 0)
    throw new PublicKeyError('is a PEM block whose content is not base64 (headers, other blocks and text around the block are not accepted)');
  const der = Buffer.from(body, 'base64');
  if (der.toString('base64') !== body) throw new PublicKeyError('is a PEM block whose base64 is not canonical');
  return { label, der };
}
