// The start of a value's JSON text, as validation messages show a value: the same characters as
// JSON.stringify's, for any value, written without recursion (no stack overflow on a value
// nested 100,000 levels deep) and without reading past what is shown.
import fc from 'fast-check';
import t from 'tap';
import { jsonHead } from '../../gateway/http/json-head.js';
import { holds } from '../helpers/property.js';

/** A value nested `levels` deep, built without recursion: lists, objects, or the two alternating. */
function deepValue(levels: number, nesting: 'lists' | 'objects' | 'mixed'): unknown {
  let value: unknown = 1;
  for (let level = 0; level < levels; level++) value = nesting === 'lists' || (nesting === 'mixed' && level % 2 === 0) ? [value] : { a: value };
  return value;
}

t.test('jsonHead(value, n) is the first n characters of JSON.stringify(value)', async (t) => {
  const values = fc.oneof(
    fc.jsonValue(),
    fc.string({ unit: 'binary' }),
    fc.anything({ withNullPrototype: true, withSparseArray: true, withDate: true, withBigInt: false, withBoxedValues: false }),
    fc.array(
      fc.oneof(
        fc.constant(undefined),
        fc.constant(() => 1),
        fc.constant(Symbol('s')),
        fc.double(),
      ),
      { maxLength: 4 },
    ),
    fc.dictionary(
      fc.string({ unit: 'binary' }),
      fc.oneof(
        fc.constant(undefined),
        fc.constant(() => 1),
        fc.jsonValue({ maxDepth: 1 }),
      ),
      { maxKeys: 4 },
    ),
  );
  holds(
    t,
    fc.property(values, fc.integer({ min: 0, max: 120 }), (value, length) => jsonHead(value, length) === JSON.stringify(value)?.slice(0, length)),
    1000,
  );
});

t.test('a value 100,000 levels deep: the start of its text, no stack overflow', async (t) => {
  t.throws(() => JSON.stringify(deepValue(100_000, 'lists')), RangeError, 'JSON.stringify itself overflows');
  t.equal(jsonHead(deepValue(100_000, 'lists'), 61), '['.repeat(61));
  t.equal(jsonHead(deepValue(100_000, 'objects'), 61), '{"a":'.repeat(12) + '{');
  t.equal(jsonHead(deepValue(100_000, 'mixed'), 20), '{"a":[{"a":[{"a":[{"');
  t.equal(jsonHead(deepValue(3, 'mixed'), 61), '[{"a":[1]}]', 'a short value whole');
});

t.test('nothing past the characters shown is read', async (t) => {
  const items: unknown[] = Array.from({ length: 100 }, (_, i) => i);
  Object.defineProperty(items, 50, {
    get() {
      throw new Error('read past the characters shown');
    },
  });
  t.equal(jsonHead(items, 20), '[0,1,2,3,4,5,6,7,8,9');
  t.equal(jsonHead('x'.repeat(10_000_000), 5), '"xxxx');
  t.equal(jsonHead(undefined, 10), undefined);
});
