// The signed request's RFC 8941 Dictionary parser against structured-headers, the library it stands
// in for: on fields made by the library's serializer, on those fields mangled, and on arbitrary text,
// both give the same dictionary or the same refusal. The fast path must also read what signed
// requests carry itself (not hand everything over, which would make the first property empty).
import fc from 'fast-check';
import t from 'tap';
import {
  DisplayString,
  Token,
  parseDictionary as libraryParse,
  serializeDictionary,
  type BareItem,
  type Dictionary,
  type InnerList,
  type Item,
} from 'structured-headers';
import { fastDictionary, parseDictionary } from '../../gateway/signing/dictionary-parser.js';
import { holds } from '../helpers/property.js';

/** A comparable form: Maps in order, bytes as hex, -0 apart from 0, tokens, dates and display strings tagged. */
function canonical(value: unknown): unknown {
  if (value instanceof Map) return ['map', [...value].map(([k, v]) => [k, canonical(v)])];
  if (value instanceof ArrayBuffer) return ['bytes', Buffer.from(value).toString('hex')];
  if (value instanceof Token) return ['token', value.toString()];
  if (value instanceof DisplayString) return ['display', value.toString()];
  if (value instanceof Date) return ['date', value.getTime()];
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value === 'number') return ['number', Object.is(value, -0) ? '-0' : String(value)];
  return [typeof value, value];
}

function outcome(parse: (field: string) => Dictionary, field: string): string {
  try {
    return JSON.stringify(canonical(parse(field)));
  } catch (error) {
    return `refused: ${(error as Error).message}`;
  }
}

function agree(field: string): void {
  const ours = outcome(parseDictionary, field);
  const library = outcome(libraryParse, field);
  if (ours !== library) throw new Error(`${JSON.stringify(field)}: ${ours}, the library ${library}`);
  // What the fast path reads itself, the library reads the same (never accepting what it refuses).
  const fast = fastDictionary(field);
  if (fast !== undefined && JSON.stringify(canonical(fast)) !== library)
    throw new Error(`${JSON.stringify(field)}: fast path ${JSON.stringify(canonical(fast))}`);
}

const key = fc.stringMatching(/^[a-z*][a-z0-9_\-.*]{0,6}$/);
const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 12 });
const bareItem: fc.Arbitrary<BareItem> = fc.oneof(
  printable,
  fc.integer({ min: -999_999_999_999_999, max: 999_999_999_999_999 }),
  fc.constantFrom(-0, 0, 1.5, -2.25, 123.456),
  fc.boolean(),
  fc.uint8Array({ maxLength: 20 }).map((bytes) => bytes.slice().buffer),
  fc.stringMatching(/^[A-Za-z*][A-Za-z0-9:/!#$%&'*+\-.^_`|~]{0,6}$/).map((text) => new Token(text)),
);
const parameters = fc.array(fc.tuple(key, bareItem), { maxLength: 3 }).map((entries) => new Map(entries));
const item: fc.Arbitrary<Item> = fc.tuple(bareItem, parameters);
const innerList: fc.Arbitrary<InnerList> = fc.tuple(fc.array(item, { maxLength: 4 }), parameters);
const dictionary = fc.array(fc.tuple(key, fc.oneof(item, innerList)), { maxLength: 4 }).map((entries) => new Map(entries));
const serialized = dictionary.map((value) => serializeDictionary(value));

/** Edits that break structure where a parser can go wrong: delimiters, quotes, escapes, spaces, bytes. */
const STRUCTURAL = [
  '"',
  '\\',
  ':',
  ';',
  ',',
  '=',
  '(',
  ')',
  ' ',
  '\t',
  '?',
  '-',
  '.',
  '@',
  '%',
  '*',
  'A',
  'a',
  '0',
  '9',
  '+',
  '/',
  '\u00e9',
  '\u0000',
  '\u{1f600}',
];
const mangled = fc
  .tuple(serialized, fc.array(fc.tuple(fc.nat(), fc.nat({ max: 2 }), fc.constantFrom(...STRUCTURAL)), { minLength: 1, maxLength: 4 }))
  .map(([field, edits]) => {
    let text = field;
    for (const [at, kind, char] of edits) {
      const i = text.length === 0 ? 0 : at % (text.length + 1);
      text =
        kind === 0 ? text.slice(0, i) + char + text.slice(i) : kind === 1 ? text.slice(0, i) + text.slice(i + 1) : text.slice(0, i) + char + text.slice(i + 1);
    }
    return text;
  });

t.test("fields the library's serializer writes: the same dictionary", async (t) => {
  holds(t, fc.property(serialized, agree), 2000);
});

t.test('mangled fields: the same dictionary or the same refusal', async (t) => {
  holds(t, fc.property(mangled, agree), 3000);
});

t.test('arbitrary text of structural characters: the same dictionary or the same refusal', async (t) => {
  holds(
    t,
    fc.property(
      fc.array(fc.constantFrom(...STRUCTURAL), { maxLength: 30 }).map((chars) => chars.join('')),
      agree,
    ),
    2000,
  );
  holds(t, fc.property(fc.string({ maxLength: 40 }), agree), 1000);
});

t.test('what signed requests carry is read by the fast path itself', async (t) => {
  const fields = [
    'sig1=("@method" "@authority" "@path" "@query" "x-access-id");created=1795935249;keyid="d080c860-4a8c-4bb0-bcb9-a14730f4d497";nonce="ueI8P954D8RzDUxfGA009Q";alg="ed25519"',
    `sig1=:${Buffer.alloc(64, 7).toString('base64')}:`,
    `sha-256=:${Buffer.alloc(32, 1).toString('base64')}:, sha-512=:${Buffer.alloc(64, 2).toString('base64')}:`,
    'a=?1, b, c=-12;x="q\\"uote\\\\"',
  ];
  for (const field of fields) {
    const fast = fastDictionary(field);
    t.ok(fast, `read without the library: ${field.slice(0, 40)}`);
    t.equal(JSON.stringify(canonical(fast)), JSON.stringify(canonical(libraryParse(field))));
  }
  t.equal(fastDictionary('a=1.5'), undefined, 'a decimal is handed to the library');
  t.equal(fastDictionary('a=tok'), undefined, 'so is a token');
  t.equal(fastDictionary('a=("x"'), undefined, 'and a malformed field, for its refusal');
  t.throws(() => parseDictionary('a=("x"'), /after every item in an inner list/, "the library's refusal");
});
