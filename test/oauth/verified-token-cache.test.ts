// The verified-token cache keeps a token until its exp, while its signing key is known, and at
// most a bounded number of tokens, the least recently used going first.
import t from 'tap';
import { VerifiedTokenCache } from '../../gateway/oauth/verified-token-cache.js';

const EXP = 2_000_000_000;
const claims = (exp = EXP) => ({ exp, sub: 'client' });
const known = () => true;

t.test('a token is served until its exp and dropped at it', async (t) => {
  let now = (EXP - 60) * 1000;
  const cache = new VerifiedTokenCache<ReturnType<typeof claims>>(10, () => now);
  cache.set('token', 'kid-1', claims());
  t.same(cache.get('token', known), { claims: claims(), kid: 'kid-1', exp: EXP });
  now = EXP * 1000 - 1;
  t.equal(cache.get('token', known)?.kid, 'kid-1', 'served up to the last millisecond before exp');
  now = EXP * 1000;
  t.equal(cache.get('token', known), undefined, 'dropped at exp');
  now = (EXP - 60) * 1000;
  t.equal(cache.get('token', known), undefined, 'and gone for good, whatever the clock says next');
});

t.test('a token already at or past its exp is not kept', async (t) => {
  let now = EXP * 1000;
  const cache = new VerifiedTokenCache<ReturnType<typeof claims>>(10, () => now);
  cache.set('expired', 'kid-1', claims());
  now = (EXP - 60) * 1000;
  t.equal(cache.get('expired', known), undefined);
});

t.test('a token whose kid is no longer known is dropped', async (t) => {
  const cache = new VerifiedTokenCache<ReturnType<typeof claims>>(10, () => (EXP - 60) * 1000);
  cache.set('token', 'kid-1', claims());
  const asked: string[] = [];
  t.equal(
    cache.get('token', (kid) => (asked.push(kid), false)),
    undefined,
    'refused once the key is unknown',
  );
  t.same(asked, ['kid-1'], 'the key is checked with the cached kid');
  t.equal(cache.get('token', known), undefined, 'and dropped, even if the key came back');
});

t.test('bounded in count: the least recently used token goes first', async (t) => {
  const cache = new VerifiedTokenCache<ReturnType<typeof claims>>(2, () => (EXP - 60) * 1000);
  cache.set('a', 'kid', claims());
  cache.set('b', 'kid', claims());
  t.ok(cache.get('a', known), 'a read: b is now the least recently used');
  cache.set('c', 'kid', claims());
  t.equal(cache.get('b', known), undefined, 'b went');
  t.ok(cache.get('a', known));
  t.ok(cache.get('c', known));
});
