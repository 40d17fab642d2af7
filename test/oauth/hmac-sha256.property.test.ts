// HMAC-SHA-256 from two one-shot digests equals node:crypto's createHmac for any key (shorter than,
// as long as and longer than SHA-256's 64-byte block) and any message, and RFC 4231's test vectors;
// the MAC of the current key follows the key however it changes.
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import t from 'tap';
import { HmacSha256, hmacOfCurrentKey } from '../../gateway/oauth/hmac-sha256.js';
import { holds } from '../helpers/property.js';

t.test("equals createHmac's for any key and message", (t) => {
  const key = fc.oneof(fc.uint8Array({ maxLength: 200 }), fc.uint8Array({ minLength: 64, maxLength: 64 }), fc.uint8Array({ minLength: 65, maxLength: 65 }));
  holds(
    t,
    fc.property(key, fc.string({ unit: 'grapheme', maxLength: 300 }), (bytes, message) => {
      const keyBuffer = Buffer.from(bytes);
      return new HmacSha256(keyBuffer).digest(message).equals(createHmac('sha256', keyBuffer).update(message, 'utf8').digest());
    }),
    500,
  );
  t.end();
});

t.test("RFC 4231's test cases 2 and 6 (a short key; a key longer than the block)", (t) => {
  t.equal(
    new HmacSha256(Buffer.from('Jefe')).digest('what do ya want for nothing?').toString('hex'),
    '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
  );
  t.equal(
    new HmacSha256(Buffer.alloc(131, 0xaa)).digest('Test Using Larger Than Block-Size Key - Hash Key First').toString('hex'),
    '60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54',
  );
  t.end();
});

t.test('one instance gives the same MAC every time (no state carried between messages)', (t) => {
  const hmac = new HmacSha256(Buffer.alloc(32, 7));
  const first = hmac.digest('client secret');
  hmac.digest('another message');
  t.ok(hmac.digest('client secret').equals(first));
  t.end();
});

t.test('the MAC of the current key follows the key: a new buffer, or the same one changed in place', (t) => {
  let key = Buffer.alloc(32, 1);
  const mac = hmacOfCurrentKey(() => key);
  const expected = (k: Buffer) => createHmac('sha256', k).update('message', 'utf8').digest();
  t.ok(mac('message').equals(expected(key)), 'the first key');
  key = Buffer.alloc(32, 2);
  t.ok(mac('message').equals(expected(key)), 'a new key');
  key.fill(3);
  t.ok(mac('message').equals(expected(key)), 'the same buffer, changed');
  t.end();
});
