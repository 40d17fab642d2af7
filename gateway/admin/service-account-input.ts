// Turns a service account request of the admin API, already shaped by its schema
// (gateway/admin/schemas/service-accounts.ts), into a complete record before anything is written.
// Here is only what a schema cannot say, each a 400 naming the field: the public key parses as an
// Ed25519 key, each allowed_ips entry is an address or CIDR range, expires_at is a real instant in
// the future.
import { randomUUID } from 'node:crypto';
import type { ServiceAccountInput, ServiceAccountKeyInput, ServiceAccountUpdate } from './schemas/service-accounts.js';
import { RFC3339_UTC_PATTERN } from './schemas/service-accounts.js';
import { invalidField } from '../errors.js';
import { serviceAccountIdFor } from '../store/account-ids.js';
import type { ServiceAccountChange, ServiceAccountKey, ServiceAccountRecord } from '../store/types.js';
import { canonicalAllowedIp, DEFAULT_ALLOWED_IPS } from '../service-accounts/allowed-ips.js';
import { PublicKeyError } from '../service-accounts/public-key-errors.js';
import { parsePublicKeyInput, type ParsedPublicKey } from '../service-accounts/public-key-input.js';

const RFC3339_UTC = new RegExp(RFC3339_UTC_PATTERN);

function allowedIps(value: readonly string[] | null | undefined): string[] {
  if (value === undefined || value === null) return [...DEFAULT_ALLOWED_IPS];
  const entries = value.map((entry) => {
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

/**
 * expires_at: null for never; else the instant, stored as ISO 8601 (milliseconds), which must be in
 * the future. The schema checked the form (RFC 3339 UTC) and that the date exists.
 */
function expiryInstant(value: string | null | undefined, now: Date): string | null {
  if (value === undefined || value === null) return null;
  const shape = 'must be an RFC 3339 UTC timestamp, e.g. "2030-01-31T17:00:00Z" (or null for no expiry)';
  const parts = RFC3339_UTC.exec(value);
  if (!parts) throw invalidField('expires_at', shape);
  const [year, month, day, hour, minute, second] = parts.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  // A leap second (23:59:60, which RFC 3339 allows) would roll over into the next day: refused, not moved.
  if (second > 59) throw invalidField('expires_at', `${JSON.stringify(value)} is not a real date and time; ${shape}`);
  const at = new Date(Date.UTC(year, month - 1, day, hour, minute, second) + Math.floor(Number(`0${parts[7] ?? ''}`) * 1000));
  if (at.getTime() <= now.getTime()) throw invalidField('expires_at', `must be in the future (got ${at.toISOString()}, now is ${now.toISOString()})`);
  return at.toISOString();
}

/** The body of POST /admin/v1/service-accounts/{id}/keys: { public_key } in any accepted form. */
export function serviceAccountKeyFromInput(input: ServiceAccountKeyInput, now = new Date()): ServiceAccountKey {
  const key = publicKey(input.public_key);
  return { publicKey: key.line, publicKeyBytes: key.raw.toString('base64url'), fingerprint: key.fingerprint, addedAt: now.toISOString() };
}

/** The lists may be read-only: callers besides the admin API (tests, benchmarks) build the input in code. */
type AccountInput = Omit<ServiceAccountInput, 'permissions' | 'allowed_ips'> & { permissions: readonly string[]; allowed_ips?: readonly string[] | null };

export function serviceAccountFromInput(input: AccountInput, now = new Date()): ServiceAccountRecord {
  const key = serviceAccountKeyFromInput(input, now);
  const expiresAt = expiryInstant(input.expires_at, now);
  const accessId = randomUUID();
  return {
    // In the Cluster slot of the Access ID, so the store keeps the id's pointer beside the record.
    id: serviceAccountIdFor(accessId),
    accessId,
    description: input.description.trim(),
    publicKey: key.publicKey,
    publicKeyBytes: key.publicKeyBytes,
    fingerprint: key.fingerprint,
    permissions: [...new Set(input.permissions)],
    allowedIps: allowedIps(input.allowed_ips),
    accountId: input.account_id ?? null,
    createdAt: now.toISOString(),
    lastUsedAt: null,
    lastUsedIp: null,
    expiresAt,
    publicKeys: [key],
  };
}

/** The body of PATCH /admin/v1/service-accounts/{id} as the change to store: only the fields given, checked as at creation. */
export function serviceAccountChangeFromInput(input: ServiceAccountUpdate, now = new Date()): ServiceAccountChange {
  return {
    ...(input.description === undefined ? {} : { description: input.description.trim() }),
    ...(input.permissions === undefined ? {} : { permissions: [...new Set(input.permissions)] }),
    ...(input.allowed_ips === undefined ? {} : { allowedIps: allowedIps(input.allowed_ips) }),
    ...(input.expires_at === undefined ? {} : { expiresAt: expiryInstant(input.expires_at, now) }),
  };
}
