// JSON Pointers (RFC 6901) back to member names, as the policy loader and the request-body checks
// read AJV's instancePath: examples, and any list of names written as a pointer reads back as itself.
import fc from 'fast-check';
import t from 'tap';
import { pointerSegments } from '../../gateway/json-pointer.js';
import { holds } from '../helpers/property.js';

/** The pointer RFC 6901 writes for the names: ~ as ~0, / as ~1, each after a /. */
const pointerOf = (names: readonly string[]) => names.map((name) => `/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');

t.test('examples', async (t) => {
  t.same(pointerSegments(''), [], 'the whole document');
  t.same(pointerSegments('/routes/0/scopes'), ['routes', '0', 'scopes']);
  t.same(pointerSegments('/a~1b/m~0n'), ['a/b', 'm~n']);
  t.same(pointerSegments('/~01'), ['~1'], '~01 is the member ~1, not /');
  t.same(pointerSegments('/'), [''], 'a member named ""');
});

t.test('any names, written as a pointer, read back as themselves', async (t) => {
  const name = fc.oneof(fc.string({ maxLength: 8 }), fc.stringMatching(/^[~/01a]{0,6}$/));
  holds(
    t,
    fc.property(fc.array(name, { maxLength: 6 }), (names) => JSON.stringify(pointerSegments(pointerOf(names))) === JSON.stringify(names)),
    500,
  );
});
