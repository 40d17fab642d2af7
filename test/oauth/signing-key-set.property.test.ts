// parseKeySet reads the signing key set from the store: a set in the current form reads as itself
// (only its three fields), and anything else is refused, never read as a guess. Older forms never
// reach it: the store upgrades them first (test/store/record-upgrades.test.ts).
import t from 'tap';
import fc from 'fast-check';
import { parseKeySet } from '../../gateway/oauth/signing-key-set.js';
import { isCurrentKeySet } from '../../gateway/store/record-upgrades.js';
import { holds } from '../helpers/property.js';
import { keySets, olderKeySets } from '../store/record-arbitraries.js';

const NOT_CURRENT = /not in the current form/;

/** True when parseKeySet refuses the text as no set in the current form. */
function refused(raw: string): boolean {
  try {
    parseKeySet(raw);
    return false;
  } catch (error) {
    return NOT_CURRENT.test((error as Error).message);
  }
}

t.test('a set in the current form reads as itself', async (t) => {
  holds(
    t,
    fc.property(keySets, fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 2 }), (set, extra) => {
      const parsed = parseKeySet(JSON.stringify({ ...extra, ...set }));
      return JSON.stringify(parsed) === JSON.stringify(set);
    }),
    300,
  );
});

t.test('a set in an older form, or any other JSON, is refused', async (t) => {
  holds(
    t,
    fc.property(olderKeySets, (set) => refused(JSON.stringify(set))),
    300,
  );
  holds(
    t,
    fc.property(
      fc.jsonValue().filter((value) => !isCurrentKeySet(value)),
      (value) => refused(JSON.stringify(value)),
    ),
    500,
  );
  for (const raw of ['{"active":{},"retired":{},"withdrawn":[]}', '{"active":{},"retired":[]}', '{"active":[],"retired":[],"withdrawn":[]}', 'null']) {
    t.ok(refused(raw), raw);
  }
  t.throws(() => parseKeySet('{"active"'), SyntaxError, 'text that is no JSON');
});
