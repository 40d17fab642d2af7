// Validates a create request for a service account (DESIGN 2.4) into a complete record, before
// anything is written: a bad field is a 400 naming that field.
import { randomBytes, randomUUID } from 'node:crypto';
import { invalidField } from '../errors.js';
import { nameSet, objectBody, optionalAccountId } from '../admin/validate.js';
import { PERMISSION_NAMES } from '../policy/vocabulary.js';
import type { ServiceAccountKey, ServiceAccountRecord } from '../store/types.js';
import { canonicalAllowedIp, DEFAULT_ALLOWED_IPS, MAX_ALLOWED_IPS } from './allowed-ips.js';
import { PublicKeyError } from './public-key-errors.js';
import { parsePublicKeyInput, type ParsedPublicKey } from './public-key-input.js';

const FIELDS = ['description', 'public_key', 'permissions', 'allowed_ips', 'account_id', 'expires_at'];
export const MAX_DESCRIPTION = 200;

/** Any text up to 200 characters (code points); shown escaped wherever it is displayed. */
function description(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw invalidField('description', 'is required and must be non-empty text');
  const text = value.trim();
  const length = [...text].length;
  if (length > MAX_DESCRIPTION) throw invalidField('description', `must be at most ${MAX_DESCRIPTION} characters (got ${length})`);
  if (/[\u0000-\u001f\u007f]/.test(text)) throw invalidField('description', 'must not contain control characters or line breaks');
  if (/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text)) throw invalidField('description', 'contains an unpaired surrogate');
  return text;
}

function allowedIps(value: unknown): string[] {
  if (value === undefined || value === null) return [...DEFAULT_ALLOWED_IPS];
  if (!Array.isArray(value) || value.length === 0) throw invalidField('allowed_ips', 'must be a non-empty list of IP addresses or CIDR ranges (omit it for 0.0.0.0/0 and ::/0)');
  if (value.length > MAX_ALLOWED_IPS) throw invalidField('allowed_ips', `must have at most ${MAX_ALLOWED_IPS} entries`);
  const entries = value.map((entry) => {
    if (typeof entry !== 'string') throw invalidField('allowed_ips', `${JSON.stringify(entry)} is not a string`);
    try {
      return canonicalAllowedIp(entry);
    } catch (error) {
      throw invalidField('allowed_ips', (error as Error).message);
    }
  });
  return [...new Set(entries)];
}

/** Any accepted form (public-key-input.ts); stored as the ssh-ed25519 line. */
function publicKey(value: unknown): ParsedPublicKey {
  try {
    return parsePublicKeyInput(value);
  } catch (error) {
    if (error instanceof PublicKeyError) throw invalidField('public_key', error.message);
    throw error;
  }
}

/** RFC 3339 in UTC: date, time (fractional seconds allowed), and Z (or +00:00). */
const RFC3339_UTC = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(?:[Zz]|\+00:00)$/;

/** expires_at: absent or null for never; else an RFC 3339 UTC timestamp in the future, stored as ISO 8601 (milliseconds). */
export function optionalExpiry(value: unknown, now: Date): string | null {
  if (value === undefined || value === null) return null;
  const shape = 'must be an RFC 3339 UTC timestamp, e.g. "2030-01-31T17:00:00Z" (or null for no expiry)';
  if (typeof value !== 'string') throw invalidField('expires_at', shape);
  const parts = RFC3339_UTC.exec(value);
  if (!parts) throw invalidField('expires_at', shape);
  const [year, month, day, hour, minute, second] = parts.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const at = new Date(Date.UTC(year, month - 1, day, hour, minute, second) + Math.floor(Number(`0${parts[7] ?? ''}`) * 1000));
  // Date.UTC rolls 2030-02-30 over into March: a date that does not exist is refused, not moved.
  if (at.getUTCFullYear() !== year || at.getUTCMonth() !== month - 1 || at.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59) {
    throw invalidField('expires_at', `${JSON.stringify(value)} is not a real date and time; ${shape}`);
  }
  if (at.getTime() <= now.getTime()) throw invalidField('expires_at', `must be in the future (got ${at.toISOString()}, now is ${now.toISOString()})`);
  return at.toISOString();
}

/** The body of POST /admin/v1/service-accounts/{id}/keys: { public_key } in any accepted form. */
export function serviceAccountKeyFromInput(body: unknown, now = new Date()): ServiceAccountKey {
  const input = objectBody(body, ['public_key']);
  const key = publicKey(input.public_key);
  return { publicKey: key.line, publicKeyBytes: key.raw.toString('base64url'), fingerprint: key.fingerprint, addedAt: now.toISOString() };
}

export function serviceAccountFromInput(body: unknown, now = new Date()): ServiceAccountRecord {
  const input = objectBody(body, FIELDS);
  const text = description(input.description);
  const key = publicKey(input.public_key);
  const expiresAt = optionalExpiry(input.expires_at, now);
  return {
    id: `sa_${randomBytes(10).toString('hex')}`,
    accessId: randomUUID(),
    description: text,
    publicKey: key.line,
    publicKeyBytes: key.raw.toString('base64url'),
    fingerprint: key.fingerprint,
    permissions: nameSet(input, 'permissions', PERMISSION_NAMES),
    allowedIps: allowedIps(input.allowed_ips),
    accountId: optionalAccountId(input),
    createdAt: now.toISOString(),
    lastUsedAt: null,
    lastUsedIp: null,
    expiresAt,
    publicKeys: [{ publicKey: key.line, publicKeyBytes: key.raw.toString('base64url'), fingerprint: key.fingerprint, addedAt: now.toISOString() }],
  };
}
