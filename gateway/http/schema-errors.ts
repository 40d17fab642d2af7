// Turns the first schema failure of a request part into the catalog's validation_error: the field
// (a body field or query parameter by name, never a JSON pointer) and what is wrong with it, as
// the admin API has always answered. A schema may word a failure itself, per keyword, in
// `x-messages`; every other failure gets the generic wording below.
import type { FastifySchemaValidationError, FastifyServerOptions } from 'fastify';
import { invalidField, type GatewayError } from '../errors.js';
import { pointerSegments } from '../json-pointer.js';
import { jsonHead } from './json-head.js';

/** The schema keyword holding a schema's own problem texts, e.g. { "pattern": "may contain only ..." }. */
export const MESSAGES_KEYWORD = 'x-messages';

/** Problem texts by AJV keyword (required, type, pattern, ...); "{value}" stands for the value given. */
export type SchemaMessages = Partial<Record<string, string>>;

type Schema = Record<string, unknown>;
/** Which request part failed: body, querystring, params or headers. */
type SchemaErrorDataVar = Parameters<NonNullable<FastifyServerOptions['schemaErrorFormatter']>>[1];

/** An AJV error with `verbose` on: the failing value and the schema holding the keyword. */
interface VerboseError extends FastifySchemaValidationError {
  data?: unknown;
  parentSchema?: Schema;
}

const WHOLE: Record<SchemaErrorDataVar, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'headers' };
const MEMBER: Record<SchemaErrorDataVar, string> = { body: 'field', querystring: 'query parameter', params: 'path parameter', headers: 'header' };
const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  object: 'a JSON object',
  array: 'a list',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  null: 'null',
};
const FORMAT_WORDS: Record<string, string> = { 'date-time': 'an RFC 3339 date and time', uuid: 'a UUID', uri: 'a URI' };
const COMPARISON_WORDS: Record<string, string> = { '>=': 'at least', '<=': 'at most', '>': 'more than', '<': 'less than' };

/**
 * The value as the message shows it: JSON, cut short so that a huge value is not echoed whole.
 * Only the characters shown are written, without recursion: a value nested thousands of levels
 * deep (refused by the JSON parser, but any other source of values too) cannot overflow the stack.
 */
function shown(value: unknown): string {
  const text = jsonHead(value, 61) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** A client-chosen name as the answer shows it: cut short like a value. */
export function boundedName(name: string): string {
  return name.length > 60 ? `${name.slice(0, 57)}...` : name;
}

function ownMessage(schema: unknown, keyword: string, value: unknown): string | undefined {
  const messages = (schema as Schema | undefined)?.[MESSAGES_KEYWORD] as SchemaMessages | undefined;
  return messages?.[keyword]?.replaceAll('{value}', shown(value));
}

function typeWords(type: unknown): string {
  return String(type)
    .split(',')
    .map((t) => TYPE_WORDS[t] ?? t)
    .join(' or ');
}

/** The generic wording of a failure, for schemas that do not word it themselves. */
function genericProblem(error: VerboseError, dataVar: SchemaErrorDataVar, isItem: boolean): string {
  const { keyword, params, data } = error;
  switch (keyword) {
    case 'type':
      // A repeated query parameter arrives as a list.
      if (dataVar === 'querystring' && Array.isArray(data)) return 'must be given once';
      return isItem ? `${shown(data)} is not ${typeWords(params.type)}` : `must be ${typeWords(params.type)}`;
    case 'enum':
      return `${shown(data)} is not one of: ${(params.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'const':
      return `must be ${shown(params.allowedValue)}`;
    case 'maxLength':
      // AJV counts code points; so does the message.
      return `must be at most ${String(params.limit)} characters (got ${[...String(data)].length})`;
    case 'minLength':
      return params.limit === 1 ? 'must not be empty' : `must be at least ${String(params.limit)} characters`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `must be ${COMPARISON_WORDS[String(params.comparison)] ?? String(params.comparison)} ${String(params.limit)}`;
    case 'minItems':
      return params.limit === 1 ? 'must be a non-empty list' : `must have at least ${String(params.limit)} entries`;
    case 'maxItems':
      return `must have at most ${String(params.limit)} entries`;
    case 'uniqueItems':
      return `must not repeat an entry (entries ${String(params.j)} and ${String(params.i)} are the same)`;
    case 'format':
      return `must be ${FORMAT_WORDS[String(params.format)] ?? `in the ${String(params.format)} format`}`;
    case 'pattern':
      return `does not have the required form (${String(params.pattern)})`;
    default:
      return error.message ?? 'is not valid';
  }
}

function fieldError(error: VerboseError, dataVar: SchemaErrorDataVar): GatewayError {
  const path = pointerSegments(error.instancePath);
  const { keyword, params, parentSchema } = error;
  if (keyword === 'required') {
    const missing = String(params.missingProperty);
    const property = (parentSchema?.properties as Schema | undefined)?.[missing];
    return invalidField(path[0] ?? missing, ownMessage(property, 'required', undefined) ?? 'is required');
  }
  if (keyword === 'additionalProperties') {
    // A hostile body may name a field of any length (up to the body limit): never echo it whole.
    const unknown = boundedName(String(params.additionalProperty));
    const known = `(known: ${Object.keys((parentSchema?.properties as Schema | undefined) ?? {}).join(', ') || 'none'})`;
    // A member named "" cannot be the field of the answer (an empty field is no field): its parent is.
    if (path[0] === undefined && unknown === '')
      return invalidField(WHOLE[dataVar], `has a ${MEMBER[dataVar]} with an empty name, which is not a known ${MEMBER[dataVar]} ${known}`);
    return invalidField(path[0] ?? unknown, `is not a known ${MEMBER[dataVar]} ${known}`);
  }
  const problem = ownMessage(parentSchema, keyword, error.data) ?? genericProblem(error, dataVar, path.length > 1);
  return invalidField(path[0] ?? WHOLE[dataVar], problem);
}

/**
 * Fastify's schemaErrorFormatter: AJV stops at the first failure (allErrors is off), and that one
 * failure is answered, as a GatewayError the error handler sends like any other.
 */
export function schemaErrorsToGatewayError(errors: FastifySchemaValidationError[], dataVar: SchemaErrorDataVar): Error {
  const first: VerboseError | undefined = errors[0];
  return first ? fieldError(first, dataVar) : invalidField(WHOLE[dataVar], 'is not valid');
}
