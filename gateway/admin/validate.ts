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

export function optionalText(body: Body, field: string, maxLength: number): string | null {
  if (body[field] === undefined || body[field] === null) return null;
  return requiredText(body, field, maxLength);
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
