// The hash slot the store routes by, and the service account ids that share their record's slot,
// checked against a real cluster-enabled redis-server (CLUSTER KEYSLOT answers without slots assigned).
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import t from 'tap';
import { serviceAccountIdFor, sharesSlot } from '../../gateway/store/account-ids.js';
import { crc16, crc16Bytes, hashTagOf, keySlot } from '../../gateway/store/cluster-slot.js';
import { holds, holdsAsync } from '../helpers/property.js';
import { freePort } from '../../bench/processes.js';
import { startRedisServer } from '../helpers/redis-server.js';

// The bus port is chosen too: the default (port + 10000) may fall among the ephemeral ports, taken.
const server = await startRedisServer(t, {
  args: ['--appendonly', 'no', '--save', '', '--cluster-enabled', 'yes', '--cluster-port', String(await freePort())],
});
const redisSlot = async (key: string) => Number(await server.command('CLUSTER', 'KEYSLOT', key));

t.test('known values: the CRC16/XMODEM check value and the slots Redis documents', async (t) => {
  t.equal(crc16('123456789'), 0x31c3);
  t.equal(keySlot('foo'), 12182);
  t.equal(keySlot('{user1000}.following'), keySlot('{user1000}.followers'));
  t.equal(hashTagOf('{user1000}.following'), 'user1000');
  t.equal(hashTagOf('foo{}{bar}'), 'foo{}{bar}', 'an empty first tag: the whole key');
  t.equal(hashTagOf('foo{{bar}}zap'), '{bar', 'from the first { to the next }');
  t.equal(hashTagOf('foo{bar'), 'foo{bar', 'no closing brace');
});

t.test('keySlot agrees with CLUSTER KEYSLOT, braces and non-ASCII text included', async (t) => {
  const piece = fc.oneof(fc.constantFrom('{', '}', '{}', 'sa:', 'é', '€', '𝄞'), fc.string({ maxLength: 8 }), fc.string({ unit: 'grapheme', maxLength: 4 }));
  const keys = fc
    .array(piece, { maxLength: 6 })
    .map((parts) => parts.join(''))
    .filter((key) => key.length > 0);
  await holdsAsync(
    t,
    fc.asyncProperty(keys, async (key) => keySlot(key) === (await redisSlot(key))),
    300,
  );
  for (const key of [`gateway:sa:{${randomUUID()}}`, `gateway:sa-id:{sa_0123456789abcdef0123}`, 'gateway:index:sas'])
    t.equal(keySlot(key), await redisSlot(key), key);
});

t.test('crc16 continues where it stopped, over text or bytes', async (t) => {
  const text = fc.string({ unit: 'grapheme' });
  holds(
    t,
    fc.property(text, text, (a, b) => crc16(a + b) === crc16(b, crc16(a))),
    300,
  );
  holds(
    t,
    fc.property(text, (value) => crc16(value) === crc16Bytes(Buffer.from(value, 'utf8'))),
    300,
  );
});

t.test('a service account id lands in the slot of its Access ID, and keeps the sa_ + 20 hex digits form', async (t) => {
  const started = performance.now();
  const pairs = Array.from({ length: 200 }, () => {
    const accessId = randomUUID();
    return { accessId, id: serviceAccountIdFor(accessId) };
  });
  const perId = (performance.now() - started) / pairs.length;
  t.comment(`${perId.toFixed(2)} ms per id`);
  t.ok(perId < 5, 'found at once, not by trying');
  t.ok(
    pairs.every(({ id }) => /^sa_[0-9a-f]{20}$/.test(id)),
    'the form is unchanged',
  );
  t.equal(new Set(pairs.map((p) => p.id)).size, pairs.length, 'ids differ');
  t.ok(pairs.every(({ id, accessId }) => sharesSlot(id, accessId)));
  for (const { id, accessId } of pairs.slice(0, 20))
    t.equal(await redisSlot(`gateway:sa-id:{${id}}`), await redisSlot(`gateway:sa:{${accessId}}`), 'Redis puts the pointer beside the record');
  const chance = Array.from({ length: 200 }, (_, i) => sharesSlot(`sa_${String(i).padStart(20, '0')}`, randomUUID())).filter(Boolean).length;
  t.ok(chance < 5, `ids made otherwise rarely do (${chance} of 200)`);
});
