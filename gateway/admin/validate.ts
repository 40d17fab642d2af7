// Small validators for admin API bodies: every failure names the field and what is wrong.
import { invalidField } from '../errors.js';

export type Body = Record<string, unknown>;

export function objectBody(body: unknown, allowed: readonly string[]): Body {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidField('body', 'must be a JSON object');
  for (const key of Object.keys(body)) if (!allowed.includes(key)) throw invalidField(key, `is not a known field (known: ${allowed.join(', ')})`);
  return body as Body;
}

export function requiredText(body: Body, field: string, maxLength: number): string {
  const value = body[field];
  if (typeof value !== 'string' || value.trim() === '') throw invalidField(field, 'is required and must be non-empty text');
  if (value.length > maxLength) throw invalidField(field, `must be at most ${maxLength} characters (got ${value.length})`);
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(value)) throw invalidField(field, 'must not contain control characters');
  return value.trim();
}

/** Visible ASCII with inner spaces, 1 to 200 characters: what an HTTP header value can carry as is. */
export const ACCOUNT_ID_PATTERN = '^[!-~]([ -~]{0,198}[!-~])?$';
const ACCOUNT_ID = new RegExp(ACCOUNT_ID_PATTERN);

/**
 * account_id, sent upstream as the x-gateway-account-id header on every request of the credential.
 * Checked here, at creation: a value the HTTP client refuses later (line breaks, non-Latin-1) would
 * turn each of those requests into a 502. Never trimmed: the upstream gets exactly what was written.
 */
export function optionalAccountId(body: Body, field = 'account_id'): string | null {
  const value = body[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value === '') throw invalidField(field, 'must be non-empty text');
  if (value.length > 200) throw invalidField(field, `must be at most 200 characters (got ${value.length})`);
  if (!ACCOUNT_ID.test(value)) {
    throw invalidField(field, 'may contain only visible ASCII characters and inner spaces (no line breaks, control or non-ASCII characters, no leading or trailing space): it is sent upstream as the x-gateway-account-id header');
  }
  return value;
}

/** A boolean that may be left out (then `absent`); any other type is refused, not coerced. */
export function optionalBoolean(body: Body, field: string, absent: boolean): boolean {
  const value = body[field];
  if (value === undefined) return absent;
  if (typeof value !== 'boolean') throw invalidField(field, 'must be true or false');
  return value;
}

/** A non-empty list of distinct names, each from the allowed vocabulary. */
export function nameSet(body: Body, field: string, allowed: readonly string[]): string[] {
  const value = body[field];
  if (!Array.isArray(value) || value.length === 0) throw invalidField(field, `must be a non-empty list drawn from: ${allowed.join(', ')}`);
  for (const item of value) {
    if (typeof item !== 'string' || !allowed.includes(item)) throw invalidField(field, `${JSON.stringify(item)} is not one of: ${allowed.join(', ')}`);
  }
  return [...new Set(value as string[])];
}
