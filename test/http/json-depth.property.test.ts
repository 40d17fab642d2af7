// The JSON body parser's depth limit: the scan of the raw text finds exactly the values nested
// deeper than the limit, and the parser gives what JSON.parse gives for every value within it,
// refuses every deeper one as validation_error naming its top-level field, and for any text at
// all answers a value or a catalog error, never anything else, never a throw.
import { isDeepStrictEqual } from 'node:util';
import Fastify, { type FastifyRequest } from 'fastify';
import fc from 'fast-check';
import t from 'tap';
import { isGatewayError, type GatewayError } from '../../gateway/errors.js';
import { depthBoundedJsonParser, type JsonBodyParser } from '../../gateway/http/json-body-parser.js';
import { depthExcess, MAX_JSON_DEPTH } from '../../gateway/http/json-depth.js';
import { holds } from '../helpers/property.js';
import { deepJson, NESTINGS, tooDeepMessage } from './deep-json.js';

type Json = unknown;

/** How deep a parsed value nests, counted without recursion: 0 for a scalar, 1 for [] or {"a":1}. */
function depthOf(value: Json): number {
  let deepest = 0;
  const pending: Array<[Json, number]> = [[value, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, depth] = next;
    if (typeof item !== 'object' || item === null) continue;
    deepest = Math.max(deepest, depth + 1);
    for (const member of Object.values(item)) pending.push([member, depth + 1]);
  }
  return deepest;
}

/** The top-level member a too-deep value is refused in: the first whose value is too deep. */
function expectedMember(value: Json, limit: number): string | undefined {
  if (limit < 1 || typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  return Object.keys(value).find((key) => 1 + depthOf((value as Record<string, Json>)[key]) > limit);
}

/** A small JSON value wrapped in up to twice the limit of lists and objects, so that both sides of the limit come up. */
const wrapper = fc.oneof(
  fc.record({ kind: fc.constant('list' as const), before: fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 2 }) }),
  fc.record({
    kind: fc.constant('object' as const),
    key: fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('__proto__', 'constructor', 'a"b', '[', '}', '\\')),
    siblings: fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }),
  }),
);
const nestedValue = fc.tuple(fc.jsonValue({ maxDepth: 3 }), fc.array(wrapper, { maxLength: 2 * MAX_JSON_DEPTH + 4 })).map(([inner, wrappers]) => {
  let value: Json = inner;
  // Computed keys make own members, "__proto__" included, as JSON.parse does.
  for (const w of wrappers) value = w.kind === 'list' ? [...w.before, value] : { ...w.siblings, [w.key]: value };
  return value;
});
/** A value's JSON text, compact or indented. */
const asText = (value: Json, indent: number) => JSON.stringify(value, null, indent);

const standard = Fastify().getDefaultJsonParser('error', 'error') as JsonBodyParser;
const parser = depthBoundedJsonParser(standard);

/** The parser's answer for a text; it must call back exactly once, before it returns. */
function parse(text: string): { error: GatewayError } | { value: Json } {
  const answers: Array<[Error | null, Json]> = [];
  parser({} as FastifyRequest, text, (error, value) => answers.push([error, value]));
  if (answers.length !== 1) throw new Error(`${answers.length} answers for ${text.slice(0, 80)}`);
  const [error, value] = answers[0]!;
  if (error === null) return { value };
  if (!isGatewayError(error)) throw new Error(`not a catalog error: ${String(error)}`);
  return { error };
}

const POISON = /"(__proto__|constructor)"/;

t.test('the scan refuses exactly the values deeper than the limit, in the first too-deep member', async (t) => {
  holds(
    t,
    fc.property(nestedValue, fc.integer({ min: 0, max: MAX_JSON_DEPTH + 8 }), fc.constantFrom(0, 1, 2), (value, limit, indent) => {
      const excess = depthExcess(asText(value, indent), limit);
      if (depthOf(value) <= limit) return excess === undefined;
      return excess !== undefined && excess.member === expectedMember(value, limit);
    }),
    500,
  );
});

t.test('within the limit the parser gives what JSON.parse gives; past it, validation_error naming the field', async (t) => {
  holds(
    t,
    fc.property(nestedValue, fc.constantFrom(0, 2), (value, indent) => {
      const text = asText(value, indent);
      const answer = parse(text);
      if (depthOf(value) <= MAX_JSON_DEPTH) {
        if ('value' in answer) return isDeepStrictEqual(answer.value, JSON.parse(text));
        // Prototype poisoning is refused by Fastify's parser underneath, as before.
        return answer.error.code === 'bad_request' && POISON.test(text);
      }
      if (!('error' in answer)) return false;
      const member = expectedMember(value, MAX_JSON_DEPTH);
      const field = member ? (member.length > 60 ? `${member.slice(0, 57)}...` : member) : 'body';
      return answer.error.code === 'validation_error' && answer.error.field === field && answer.error.message === tooDeepMessage(field);
    }),
    500,
  );
});

t.test('any text: a value equal to JSON.parse, or a catalog error; the scan never throws', async (t) => {
  const jsonish = fc.string({ unit: fc.constantFrom('[', ']', '{', '}', '"', '\\', ':', ',', 'a', '1', ' ', 'u', '\ud800'), maxLength: 120 });
  const text = fc.oneof(
    jsonish,
    fc.string({ unit: 'binary', maxLength: 60 }),
    nestedValue.map((v) => asText(v, 0)).chain((s) => fc.nat(s.length).map((cut) => s.slice(0, cut))),
  );
  holds(
    t,
    fc.property(text, (body) => {
      depthExcess(body, 3);
      const answer = parse(body);
      let parsed: Json;
      try {
        parsed = JSON.parse(body);
      } catch {
        // Not JSON: refused, as too deep (when it is) or as malformed.
        return 'error' in answer && (answer.error.code === 'bad_request' || (answer.error.code === 'validation_error' && depthExcess(body) !== undefined));
      }
      if ('value' in answer) return isDeepStrictEqual(answer.value, parsed);
      return answer.error.code === 'validation_error' ? depthOf(parsed) > MAX_JSON_DEPTH : POISON.test(body) || body.trim() === '';
    }),
    2000,
  );
});

t.test('examples: the limit exactly, strings full of brackets, malformed bodies as before, millions of levels', async (t) => {
  for (const nesting of NESTINGS) {
    t.same(parse(deepJson(MAX_JSON_DEPTH, nesting)), { value: JSON.parse(deepJson(MAX_JSON_DEPTH, nesting)) }, `${MAX_JSON_DEPTH} levels of ${nesting}`);
    const over = parse(deepJson(MAX_JSON_DEPTH + 1, nesting));
    t.equal('error' in over && over.error.message, tooDeepMessage(nesting === 'objects' ? 'a' : 'body'), `${MAX_JSON_DEPTH + 1} levels of ${nesting}`);
  }
  const brackets = `{"s":"${'[{'.repeat(1000)}\\"${'['.repeat(1000)}","t":["\\\\",${deepJson(10, 'lists')}]}`;
  t.same(parse(brackets), { value: JSON.parse(brackets) }, 'brackets in strings, escaped quotes and backslashes do not count');
  t.match(parse(''), { error: { code: 'bad_request' } }, 'an empty body is malformed, as before');
  t.match(parse('{"a":'), { error: { code: 'bad_request' } }, 'truncated JSON is malformed, as before');
  t.match(parse('{"__proto__":{"x":1}}'), { error: { code: 'bad_request' } }, 'prototype poisoning is refused, as before');
  t.same(depthExcess('['.repeat(10_000_000)), { member: undefined }, 'ten million unclosed brackets: refused, the body named');
  t.same(depthExcess(`{"k":${deepJson(100_000, 'mixed')}}`), { member: 'k' }, '100,000 levels in a member: that member named');
});
