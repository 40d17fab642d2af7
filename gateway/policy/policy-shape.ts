// Checks a policy file against its schema (policy-schema.ts) and turns the first problem AJV finds
// into a message like the loader's own: the file, the route (its number, or its method and path once
// those are readable), the field and what it expects, and the value given.
import { Ajv, type ErrorObject } from 'ajv';
import { pointerSegments } from '../json-pointer.js';
import { PolicyError } from './policy-error.js';
import { METHODS, PolicyFileSchema, type PolicyFileShape } from './policy-schema.js';
import { parseRateLimit } from './rate-limit-rule.js';

type Schema = Record<string, unknown>;

// All errors, so the first one can be chosen in the order a person reads a file (below), not in
// the order AJV happens to check keywords. `verbose` gives each error its value and its schema.
const ajv = new Ajv({ allErrors: true, verbose: true });
ajv.addKeyword('errorMessage');
const validateFile = ajv.compile<PolicyFileShape>(PolicyFileSchema);

/** The order problems are reported in: the file's own fields, then each route's, top to bottom. */
const FILE_FIELDS = ['routes', 'rate_limit', 'upstream', 'auth', 'host', 'digest', 'message_signing', 'scopes', 'permissions'];
const ROUTE_FIELDS = ['method', 'path', 'upstream', 'auth', 'host', 'scopes', 'permissions', 'digest', 'message_signing', 'id', 'rate_limit'];
const METHOD = new RegExp(`^(${METHODS.join('|')})$`, 'i');

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A value from the file, for a message: cut short, and YAML aliases can make it circular, which JSON cannot show. */
function shown(value: unknown): string {
  let text: string;
  // What JSON would misrepresent (.inf as null, a set or binary data as {}) is named by its kind.
  if (typeof value === 'number' && !Number.isFinite(value)) text = String(value);
  else if (value instanceof Set) text = 'a set';
  else if (ArrayBuffer.isView(value)) text = 'binary data';
  else
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = Array.isArray(value) ? 'a self-referencing list' : 'a self-referencing mapping';
    }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** Where an error is: its route's index (undefined for the file's own fields) and the field path within. */
function placeOf(error: ErrorObject): { route: number | undefined; field: string[] } {
  const segments = pointerSegments(error.instancePath);
  return segments[0] === 'routes' && segments.length >= 2 ? { route: Number(segments[1]), field: segments.slice(2) } : { route: undefined, field: segments };
}

/** How early a problem is reported: the file's fields first, the object's own shape before its fields. */
function rankOf(error: ErrorObject): number[] {
  const { route, field } = placeOf(error);
  const order = route === undefined ? FILE_FIELDS : ROUTE_FIELDS;
  const position = (name: string) => (order.includes(name) ? order.indexOf(name) : order.length);
  let rank: number;
  if (field.length > 0) rank = position(field[0]!);
  else if (error.keyword === 'required') rank = position(String(error.params.missingProperty));
  else rank = error.keyword === 'additionalProperties' ? -1 : -2;
  return [route ?? -1, rank];
}

function compareRanks(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

/** The problem to report: one of a union's branches says less than the union's own message does. */
function firstProblem(errors: readonly ErrorObject[]): ErrorObject {
  const unions = errors.filter((e) => e.keyword === 'anyOf').map((e) => `${e.schemaPath}/`);
  const kept = errors.filter((e) => !unions.some((union) => e.schemaPath.startsWith(union)));
  return kept.map((error, i) => ({ error, i })).sort((a, b) => compareRanks(rankOf(a.error), rankOf(b.error)) || a.i - b.i)[0]!.error;
}

/** "route 3", or "route GET /v1/sales" when the problem is not in what names the route. */
function routeName(route: unknown, index: number, field: readonly string[]): string {
  const named = field.length > 0 && field[0] !== 'method' && field[0] !== 'path';
  if (named && isMapping(route) && typeof route.method === 'string' && METHOD.test(route.method) && typeof route.path === 'string') {
    return `route ${route.method.toUpperCase()} ${route.path}`;
  }
  return `route ${index + 1}`;
}

/** The field as a person finds it in the file: "rate_limit.per", "scopes entry 2", "permissions.refund". */
function labelOf(field: readonly string[]): string {
  return field.map((part, i) => (/^\d+$/.test(part) ? ` entry ${Number(part) + 1}` : i === 0 ? part : `.${part}`)).join('');
}

function expectedOf(schema: Schema | undefined): string | undefined {
  return typeof schema?.errorMessage === 'string' ? schema.errorMessage : undefined;
}

/** For the few failures whose schema words nothing itself (an object of the wrong type). */
function genericExpectation(error: ErrorObject, schema: Schema): string {
  if (error.keyword !== 'type') return error.message ?? 'is not valid';
  if (schema.type === 'object') {
    const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
    return required.length === 0 ? 'must be a mapping' : `must be a mapping with ${required.join(' and ')}`;
  }
  return schema.type === 'array' ? 'must be a list' : `must be ${String(schema.type)}`;
}

function problemOf(error: ErrorObject, field: readonly string[]): string {
  const schema = (error.parentSchema ?? {}) as Schema;
  const label = labelOf(field);
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  if (error.keyword === 'additionalProperties') {
    const key = shown(String(error.params.additionalProperty));
    // A map of declared names refuses a key that is not a name; an object, a field it does not have.
    if (schema.patternProperties) return `${label} ${expectedOf(schema) ?? 'has a key of the wrong form'}; ${key} is not one`;
    return `${label === '' ? '' : `${label} has an `}unknown field ${key} (known: ${Object.keys(properties).join(', ')})`;
  }
  if (error.keyword === 'required') {
    const missing = String(error.params.missingProperty);
    return `${labelOf([...field, missing])} is required: it ${expectedOf(properties[missing]) ?? 'must be given'}`;
  }
  const expected = expectedOf(schema) ?? genericExpectation(error, schema);
  return `${label === '' ? '' : `${label} `}${expected}, got ${shown(error.data)}`;
}

function messageOf(file: string, doc: unknown, error: ErrorObject): string {
  const { route, field } = placeOf(error);
  const routes = isMapping(doc) && Array.isArray(doc.routes) ? (doc.routes as unknown[]) : [];
  const owner = route === undefined ? doc : routes[route];
  const where = route === undefined ? file : `${file}, ${routeName(owner, route, field)}`;
  // A rate limit explains itself in the same words at load and in parseRateLimit's own tests.
  if (field[0] === 'rate_limit' && isMapping(owner)) {
    try {
      parseRateLimit(owner.rate_limit);
    } catch (problem) {
      return `${where}: ${(problem as Error).message}`;
    }
  }
  return `${where}: ${problemOf(error, field)}`;
}

/** Throws a PolicyError naming the file (and route, field and value) unless the document has a policy file's shape. */
export function checkPolicyShape(file: string, doc: unknown): asserts doc is PolicyFileShape {
  if (validateFile(doc)) return;
  throw new PolicyError(messageOf(file, doc, firstProblem(validateFile.errors ?? [])));
}
