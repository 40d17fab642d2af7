// Small builders the route schemas share (the admin API's and the dashboard's).
import { Type, type Static, type TSchema } from 'typebox';
import { MESSAGES_KEYWORD, type SchemaMessages } from './schema-errors.js';

/** The schema's own words for its failures (gateway/http/schema-errors.ts), as a schema option. */
export function messages(texts: SchemaMessages): Record<string, SchemaMessages> {
  return { [MESSAGES_KEYWORD]: texts };
}

/**
 * The schema, or null: one `type` list rather than anyOf, so that a failure is reported by the
 * schema's own keyword (maxLength, pattern, ...) and not as "matches no alternative".
 */
export function Nullable<T extends TSchema & { type: string }>(schema: T) {
  return Type.Unsafe<Static<T> | null>({ ...schema, type: [schema.type, 'null'] });
}

/**
 * A name from a vocabulary (scopes, permissions). Statically a string: records are read back from
 * the store as text, and the schema (not the type) is what holds the vocabulary.
 */
export function VocabularyName(names: readonly string[], options: Record<string, unknown> = {}) {
  return Type.Unsafe<string>({ type: 'string', enum: [...names], ...options });
}

/** The schema with a description, e.g. an answer's, which the OpenAPI document shows with it. */
export function described<T extends TSchema>(schema: T, description: string): T {
  return { ...schema, description };
}
