// The embedded store's used nonces: consumed once per Access ID, held for their whole lifetime and
// forgotten within one generation after it; their keyed 52-bit hashes meet only by chance.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import t from 'tap';
import { NonceSet } from '../../gateway/store/nonce-set.js';

function clocked() {
  let nowMs = 1_800_000_000_000;
  const nonces = new NonceSet(() => nowMs);
  return { nonces, advance: (ms: number) => (nowMs += ms) };
}

t.test('a nonce is recorded once per Access ID; looking it up records nothing', async (t) => {
  const { nonces } = clocked();
  const [a, b] = [randomUUID(), randomUUID()];
  t.equal(nonces.has(a, 'n1'), false);
  t.equal(nonces.has(a, 'n1'), false, 'looking up did not record it');
  t.equal(nonces.addIfAbsent(a, 'n1', 310_000), true, 'fresh');
  t.equal(nonces.addIfAbsent(a, 'n1', 310_000), false, 'used');
  t.equal(nonces.has(a, 'n1'), true);
  t.equal(nonces.addIfAbsent(b, 'n1', 310_000), true, 'the same nonce of another Access ID is fresh');
  t.equal(nonces.addIfAbsent(a, 'n2', 310_000), true);
  t.equal(nonces.size, 3);
});

t.test('property: held for its whole lifetime, forgotten within one generation after it', async (t) => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 3_600_000 }), fc.array(fc.integer({ min: 0, max: 4_000_000 }), { minLength: 1, maxLength: 20 }), (ttlMs, offsets) => {
      const { nonces, advance } = clocked();
      const accessId = randomUUID();
      nonces.addIfAbsent(accessId, 'n', ttlMs);
      let elapsed = 0;
      for (const offset of [...offsets].sort((x, y) => x - y)) {
        advance(offset - elapsed);
        elapsed = offset;
        const held = nonces.has(accessId, 'n');
        if (offset < ttlMs && !held) return false;
        if (offset >= ttlMs + Math.ceil(ttlMs / 8) && held) return false;
      }
      return true;
    }),
    { numRuns: 500 },
  );
  t.pass('never forgotten early, never kept past ttl + ttl/8');
});

t.test('sweep drops the generations whose nonces all expired', async (t) => {
  const { nonces, advance } = clocked();
  const accessId = randomUUID();
  for (let i = 0; i < 100; i++) nonces.addIfAbsent(accessId, `early-${i}`, 1000);
  advance(600);
  for (let i = 0; i < 50; i++) nonces.addIfAbsent(accessId, `late-${i}`, 1000);
  t.equal(nonces.size, 150);
  advance(600);
  nonces.sweep();
  t.equal(nonces.size, 50, 'the first hundred expired and went; the later fifty are held');
  t.equal(nonces.has(accessId, 'late-0'), true);
  advance(1000);
  nonces.sweep();
  t.equal(nonces.size, 0);
});

t.test('distinct nonces do not meet: 50,000 random ones, no false replay', async (t) => {
  const { nonces } = clocked();
  const accounts = Array.from({ length: 50 }, () => randomUUID());
  let fresh = 0;
  for (let i = 0; i < 50_000; i++) if (nonces.addIfAbsent(accounts[i % accounts.length]!, randomUUID(), 310_000)) fresh++;
  t.equal(fresh, 50_000);
  t.equal(nonces.size, 50_000);
});

t.test('nonces alike but for a digit do not meet either: counters 0-49,999 under two Access IDs', async (t) => {
  const { nonces } = clocked();
  let fresh = 0;
  for (let i = 0; i < 50_000; i++) if (nonces.addIfAbsent(i % 2 === 0 ? 'acc-0' : 'acc-1', `nonce-${Math.floor(i / 2)}`, 310_000)) fresh++;
  t.equal(fresh, 50_000);
  t.equal(nonces.addIfAbsent('acc-0', 'nonce-0', 310_000), false, 'a counter used is still refused');
});
