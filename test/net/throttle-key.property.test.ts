// Property tests of throttleKeyOf, the key every per-address counter uses: IPv6 addresses of one
// network (of the configured prefix) share a key and addresses of different networks never do;
// an IPv4 address has its own key, the same whether it arrives as IPv4 or IPv4-mapped IPv6.
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import t from 'tap';
import { parseAddress, parsePeerAddress } from '../../gateway/net/cidr.js';
import { IPV6_PREFIX_RANGE, throttleKeyOf } from '../../gateway/net/throttle-key.js';
import { holds } from '../helpers/property.js';

const RUNS = 500;

const octet = fc.integer({ min: 0, max: 255 });
const v4Bytes = fc.array(octet, { minLength: 4, maxLength: 4 });
const MAPPED_HEAD = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];
/** Any 16 bytes, and now and then an IPv4-mapped address (::ffff:a.b.c.d). */
const v6Bytes = fc.oneof(
  { weight: 4, arbitrary: fc.array(octet, { minLength: 16, maxLength: 16 }) },
  { weight: 1, arbitrary: v4Bytes.map((v4) => [...MAPPED_HEAD, ...v4]) },
);
/** The default /64 most of the time, any accepted prefix otherwise. */
const prefix = fc.oneof(fc.constant(64), fc.integer(IPV6_PREFIX_RANGE));

const isMapped = (bytes: number[]) => MAPPED_HEAD.every((b, i) => bytes[i] === b);

/** The first bits of a, the rest from b: an address in a's network for every prefix up to bits. */
function splice(a: number[], b: number[], bits: number): number[] {
  return a.map((byte, i) => {
    const kept = Math.max(0, Math.min(8, bits - 8 * i));
    const mask = (0xff << (8 - kept)) & 0xff;
    return (byte & mask) | (b[i]! & ~mask & 0xff);
  });
}

/** a's first bits with b's rest is b itself: a and b agree on their first bits. */
function samePrefix(a: number[], b: number[], bits: number): boolean {
  return splice(a, b, bits).every((byte, i) => byte === b[i]);
}

/** The model: mapped addresses are the IPv4 address they carry; other IPv6 addresses are their network. */
function sameNetwork(a: number[], b: number[], bits: number): boolean {
  if (isMapped(a) || isMapped(b)) return isMapped(a) && isMapped(b) && a.slice(12).every((byte, i) => byte === b[12 + i]);
  return samePrefix(a, b, bits);
}

/** Standard IPv6 text in one of several spellings. */
function spelled(bytes: number[], form: 'full' | 'upper' | 'compressed'): string {
  const full = Array.from({ length: 8 }, (_, i) => ((bytes[2 * i]! << 8) | bytes[2 * i + 1]!).toString(16)).join(':');
  if (form === 'upper') return full.toUpperCase();
  return form === 'full' ? full : ipaddr.IPv6.parse(full).toRFC5952String();
}

t.test('two IPv6 addresses share a key exactly when they are in one network of the prefix', async (t) => {
  holds(
    t,
    fc.property(v6Bytes, v6Bytes, fc.integer({ min: 0, max: 128 }), prefix, (a, b, split, bits) => {
      // Splitting at a random bit gives pairs inside and outside one network about equally often.
      const c = splice(a, b, split);
      const key = (bytes: number[]) => throttleKeyOf(ipaddr.fromByteArray(bytes), bits);
      const expected = sameNetwork(a, c, bits);
      if ((key(a) === key(c)) !== expected) {
        throw new Error(
          `/${bits}: ${ipaddr.fromByteArray(a).toString()} -> ${key(a)}, ${ipaddr.fromByteArray(c).toString()} -> ${key(c)}; expected ${expected ? 'one key' : 'two keys'}`,
        );
      }
    }),
    RUNS,
  );
});

t.test('every address of one /64 gives one key, whatever its interface identifier and spelling', async (t) => {
  holds(
    t,
    fc.property(
      v6Bytes.filter((bytes) => !isMapped(bytes)),
      fc.array(octet, { minLength: 8, maxLength: 8 }),
      fc.constantFrom('full', 'upper', 'compressed' as const),
      (network, host, form) => {
        const other = [...network.slice(0, 8), ...host];
        const fromSocket = parsePeerAddress(spelled(other, form));
        const fromHeader = parseAddress(spelled(network, 'compressed'));
        if (throttleKeyOf(fromSocket, 64) !== throttleKeyOf(fromHeader, 64)) {
          throw new Error(`${spelled(other, form)} and ${spelled(network, 'compressed')} have different keys`);
        }
        if (!throttleKeyOf(fromHeader, 64).endsWith('/64')) throw new Error(`the key ${throttleKeyOf(fromHeader, 64)} does not name its network`);
      },
    ),
    RUNS,
  );
});

t.test('an IPv4 address has one key of its own, the same as its IPv4-mapped IPv6 form, whatever the prefix', async (t) => {
  holds(
    t,
    fc.property(v4Bytes, v4Bytes, prefix, prefix, (a, b, bitsA, bitsB) => {
      const text = a.join('.');
      const keys = [
        throttleKeyOf(parseAddress(text), bitsA),
        throttleKeyOf(parseAddress(`::ffff:${text}`), bitsB),
        throttleKeyOf(parsePeerAddress(`::ffff:${text}`), bitsA),
        // An IPv6 object still in mapped form, as ipaddr.js parses it.
        throttleKeyOf(ipaddr.IPv6.parse(`::ffff:${text}`), bitsB),
      ];
      if (keys.some((key) => key !== text)) throw new Error(`${text}: keys ${keys.join(', ')}`);
      const other = throttleKeyOf(parseAddress(b.join('.')), bitsB);
      if ((other === text) !== (b.join('.') === text)) throw new Error(`${text} and ${b.join('.')} share a key`);
    }),
    RUNS,
  );
});

t.test('IPv4 keys and IPv6 keys never meet', async (t) => {
  holds(
    t,
    fc.property(
      v4Bytes,
      v6Bytes.filter((bytes) => !isMapped(bytes)),
      prefix,
      (v4, v6, bits) => {
        const v4Key = throttleKeyOf(parseAddress(v4.join('.')), bits);
        const v6Key = throttleKeyOf(ipaddr.fromByteArray(v6), bits);
        if (v4Key.includes(':') || !v6Key.includes(':')) throw new Error(`${v4Key} / ${v6Key}`);
      },
    ),
    RUNS,
  );
});

t.test('examples', async (t) => {
  t.equal(throttleKeyOf(parseAddress('2001:db8:1:2:aaaa:bbbb:cccc:dddd'), 64), '2001:db8:1:2::/64');
  t.equal(throttleKeyOf(parseAddress('2001:db8:1:2::1'), 64), '2001:db8:1:2::/64', 'the same /64');
  t.equal(throttleKeyOf(parseAddress('2001:db8:1:3::1'), 64), '2001:db8:1:3::/64', 'the next /64');
  t.equal(throttleKeyOf(parseAddress('2001:db8:1:3::1'), 48), '2001:db8:1::/48');
  t.equal(throttleKeyOf(parseAddress('2001:db8:1:3::1'), 128), '2001:db8:1:3::1/128', '/128: each address alone');
  t.equal(throttleKeyOf(parsePeerAddress('fe80::1%eth0'), 64), 'fe80::/64', 'a zone id is not part of the network');
  t.equal(throttleKeyOf(parseAddress('203.0.113.7'), 64), '203.0.113.7');
  t.equal(throttleKeyOf(parsePeerAddress('::ffff:203.0.113.7'), 64), '203.0.113.7');
  t.equal(throttleKeyOf(undefined, 64), 'unknown', 'no socket address: one shared key');
});
