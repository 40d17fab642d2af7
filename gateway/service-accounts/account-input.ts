// Validates a create request for a service account (DESIGN 2.4) into a complete record, before
// anything is written: a bad field is a 400 naming that field.
import { randomBytes, randomUUID } from 'node:crypto';
import { invalidField } from '../errors.js';
import { nameSet, objectBody, optionalAccountId } from '../admin/validate.js';
import { PERMISSION_NAMES } from '../policy/vocabulary.js';
import type { ServiceAccountRecord } from '../store/types.js';
import { canonicalAllowedIp, DEFAULT_ALLOWED_IPS, MAX_ALLOWED_IPS } from './allowed-ips.js';
import { PublicKeyError } from './public-key-errors.js';
import { parsePublicKeyInput, type ParsedPublicKey } from './public-key-input.js';

const FIELDS = ['description', 'public_key', 'permissions', 'allowed_ips', 'account_id'];
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

export function serviceAccountFromInput(body: unknown, now = new Date()): ServiceAccountRecord {
  const input = objectBody(body, FIELDS);
  const text = description(input.description);
  const key = publicKey(input.public_key);
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
  };
}
