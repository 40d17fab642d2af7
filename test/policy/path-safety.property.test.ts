// Property tests of request-target checking: any target is either refused with ambiguous_path
// (400) or yields exactly the raw path, split into segments that decode to no dot segment, slash,
// backslash or NUL; the gateway never normalises.
import fc from 'fast-check';
import t from 'tap';
import { GatewayError } from '../../gateway/errors.js';
import { checkTarget, type SafeTarget } from '../../gateway/policy/path-safety.js';
import { holds } from '../helpers/property.js';

/** Pieces that matter to path parsers, mixed with ordinary text. */
const piece = fc.oneof(
  fc.constantFrom(
    '/',
    '/',
    '.',
    '..',
    '%2f',
    '%2F',
    '%2e',
    '%5c',
    '%25',
    '%00',
    '%',
    '%f',
    '%zz',
    '%ff',
    '%c0%af',
    '%c3%a9',
    '%e2%82',
    '\\',
    ';',
    '?',
    '#',
    '//',
    '~',
    '@',
    ':',
    ' ',
    '\t',
    '\u00e9',
    '%41',
  ),
  fc.string({ unit: fc.constantFrom(..."abcXYZ019-_.~!$&'()*+,=:@".split('')), minLength: 1, maxLength: 6 }),
  fc.string({ maxLength: 4 }),
);
const target = fc.oneof(
  fc.array(piece, { maxLength: 12 }).map((parts) => `/${parts.join('')}`),
  fc.array(piece, { maxLength: 12 }).map((parts) => parts.join('')),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }).map((s) => `/${s}`),
);

function checked(raw: string): SafeTarget | undefined {
  try {
    return checkTarget(raw);
  } catch (error) {
    if (error instanceof GatewayError && (error.code === 'ambiguous_path' || error.code === 'bad_request') && error.status === 400) return undefined;
    throw error;
  }
}

t.test('refused with 400, or the exact raw path with clean segments', async (t) => {
  holds(
    t,
    fc.property(target, (raw) => {
      const result = checked(raw);
      if (!result) return;
      const queryAt = raw.indexOf('?');
      const rawPath = queryAt === -1 ? raw : raw.slice(0, queryAt);
      const fail = (problem: string) => {
        throw new Error(`${JSON.stringify(raw)}: ${problem} (${JSON.stringify(result)})`);
      };
      if (result.path !== rawPath) fail('the path is not the raw path');
      if (result.query !== (queryAt === -1 ? '' : raw.slice(queryAt + 1))) fail('the query is not the raw query');
      const rawSegments = rawPath === '/' ? [] : rawPath.slice(1).split('/');
      if (result.segments.length !== rawSegments.length) fail('segments were added or lost');
      if (`/${rawSegments.join('/')}` !== rawPath) fail('the segments do not rebuild the path');
      result.segments.forEach((segment, i) => {
        if (segment === '' || segment === '.' || segment === '..') fail(`segment ${i} is empty or a dot segment`);
        if (/[/\\\u0000]/.test(segment)) fail(`segment ${i} decodes to a slash, backslash or NUL`);
        if (/%2e|%2f|%5c|%25|%00/i.test(rawSegments[i]!)) fail(`segment ${i} carries an encoded dot, slash, backslash, percent or NUL`);
        if (segment !== decodeURIComponent(rawSegments[i]!)) fail(`segment ${i} is not the decoded raw segment`);
      });
    }),
    500,
  );
});

t.test('ordinary route paths pass unchanged', async (t) => {
  const segment = fc.string({ unit: fc.constantFrom(...'abcxyz0123456789-_~'.split('')), minLength: 1, maxLength: 10 });
  holds(
    t,
    fc.property(
      fc.array(segment, { minLength: 1, maxLength: 5 }),
      fc.string({ unit: fc.constantFrom(...'a=1&b'.split('')), maxLength: 10 }),
      (segments, query) => {
        const raw = `/${segments.join('/')}${query ? `?${query}` : ''}`;
        const result = checkTarget(raw);
        if (result.segments.join('/') !== segments.join('/') || result.query !== query) throw new Error(`${raw} changed: ${JSON.stringify(result)}`);
      },
    ),
    200,
  );
});
