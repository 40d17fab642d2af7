// Property tests of the strict address and CIDR parser behind allow-lists and trusted proxies:
// any text either parses or throws a plain Error with a message, canonical text re-parses to
// itself, and containment agrees with Node's own BlockList.
import { BlockList, isIP } from 'node:net';
import fc from 'fast-check';
import t from 'tap';
import { holds } from '../helpers/property.js';
import { cidrContains, parseAddress, parseCidr } from '../../gateway/net/cidr.js';
import { canonicalAllowedIp } from '../../gateway/service-accounts/allowed-ips.js';

const RUNS = 400;

const octet = fc.integer({ min: 0, max: 255 });
const v4Bytes = fc.array(octet, { minLength: 4, maxLength: 4 });
const v6Bytes = fc.array(octet, { minLength: 16, maxLength: 16 });
const v4Text = v4Bytes.map((b) => b.join('.'));
/** Standard IPv6 text in several spellings: full, compressed, upper case, mapped or compatible IPv4 tail. */
const v6Text = fc.tuple(v6Bytes, fc.constantFrom('full', 'compressed', 'upper', 'mapped', 'compatible', 'v4tail')).map(([bytes, form]) => {
  const groups = Array.from({ length: 8 }, (_, i) => ((bytes[2 * i]! << 8) | bytes[2 * i + 1]!).toString(16));
  if (form === 'mapped') return `::ffff:${bytes.slice(12).join('.')}`;
  // The deprecated IPv4-compatible form ::a.b.c.d is ::xxxx:xxxx, not the mapped IPv4 address.
  if (form === 'compatible') return `::${bytes.slice(12).join('.')}`;
  if (form === 'v4tail') return `${groups.slice(0, 6).join(':')}:${bytes.slice(12).join('.')}`;
  const full = groups.join(':');
  if (form === 'upper') return full.toUpperCase();
  return form === 'full' ? full : full.replace(/(^|:)0(:0)+(:|$)/, '::');
});
/** Address-like text with the usual mistakes: leading zeros, ports, brackets, zones, short forms. */
const addressLike = fc.oneof(
  v4Text,
  v6Text,
  fc.tuple(v4Bytes, fc.integer({ min: 0, max: 3 })).map(([b, i]) => b.map((x, j) => (j === i ? `0${x}` : String(x))).join('.')),
  fc.tuple(v4Text, fc.integer({ min: 0, max: 65535 })).map(([a, port]) => `${a}:${port}`),
  fc.tuple(v6Text, fc.integer({ min: 0, max: 65535 })).map(([a, port]) => `[${a}]:${port}`),
  v6Text.map((a) => `${a}%eth0`),
  fc.array(octet, { minLength: 1, maxLength: 5 }).map((b) => b.join('.')),
  fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF:.x/% []'.split('')), maxLength: 45 }),
);
const cidrLike = fc.oneof(
  addressLike,
  fc
    .tuple(addressLike, fc.oneof(fc.integer({ min: 0, max: 140 }).map(String), fc.constantFrom('', '08', '-1', '1e1', ' 8', '32 ')))
    .map(([a, p]) => `${a}/${p}`),
  fc.string({ maxLength: 60 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
);

function parsesOrPlainError<T>(parse: () => T): T | undefined {
  try {
    return parse();
  } catch (error) {
    if (!(error instanceof Error) || error.constructor !== Error || error.message === '') throw error;
    return undefined;
  }
}

t.test('parseCidr and parseAddress never throw anything but a plain Error with a message', async (t) => {
  holds(
    t,
    fc.property(cidrLike, (text) => {
      parsesOrPlainError(() => parseAddress(text));
      parsesOrPlainError(() => parseCidr(text));
      parsesOrPlainError(() => canonicalAllowedIp(text));
    }),
    RUNS,
  );
});

t.test('canonical text re-parses to itself', async (t) => {
  holds(
    t,
    fc.property(cidrLike, (text) => {
      const range = parsesOrPlainError(() => parseCidr(text));
      if (!range) return;
      const again = parseCidr(range.text);
      if (again.text !== range.text || again.prefix !== range.prefix || again.address.toString() !== range.address.toString()) {
        throw new Error(`${JSON.stringify(text)} -> ${range.text} -> ${again.text}`);
      }
      const stored = canonicalAllowedIp(text);
      if (canonicalAllowedIp(stored) !== stored) throw new Error(`allow-list entry ${JSON.stringify(text)} -> ${stored} is not stable`);
    }),
    RUNS,
  );
});

t.test('an accepted address is the address Node reads from the same text', async (t) => {
  holds(
    t,
    fc.property(addressLike, (text) => {
      const address = parsesOrPlainError(() => parseAddress(text));
      if (!address) return;
      const trimmed = text.trim();
      const family = isIP(trimmed);
      if (family === 0) throw new Error(`${JSON.stringify(text)} accepted as ${address.toString()}, but Node does not read it as an address`);
      // Node matches IPv4 rules against IPv4-mapped IPv6 addresses too, so mapped text checks against the IPv4 result.
      const rule = new BlockList();
      rule.addAddress(address.toString(), address.kind());
      if (!rule.check(trimmed, family === 4 ? 'ipv4' : 'ipv6'))
        throw new Error(`${JSON.stringify(text)} accepted as ${address.toString()}, which Node reads differently`);
    }),
    RUNS,
  );
});

/** The network of bytes under prefix, and one address inside it and one outside it (when there is one). */
function networkOf(bytes: number[], prefix: number): number[] {
  return bytes.map((byte, i) => {
    const bits = Math.max(0, Math.min(8, prefix - 8 * i));
    return byte & ((0xff << (8 - bits)) & 0xff);
  });
}

function text(bytes: number[]): string {
  if (bytes.length === 4) return bytes.join('.');
  return Array.from({ length: 8 }, (_, i) => ((bytes[2 * i]! << 8) | bytes[2 * i + 1]!).toString(16)).join(':');
}

t.test('containment: what a range holds agrees with Node, and host bits are refused', async (t) => {
  const range = fc.oneof(fc.tuple(v4Bytes, fc.integer({ min: 0, max: 32 }), v4Bytes), fc.tuple(v6Bytes, fc.integer({ min: 0, max: 128 }), v6Bytes));
  holds(
    t,
    fc.property(range, ([bytes, prefix, other]) => {
      const network = networkOf(bytes, prefix);
      const family = bytes.length === 4 ? 'ipv4' : 'ipv6';
      // An IPv6 network inside ::ffff:0:0/96 is the IPv4 range it maps; the oracle below covers the rest.
      const parsed = parseCidr(`${text(network)}/${prefix}`);
      const inside = parseAddress(text(bytes));
      if (!cidrContains(parsed, inside)) throw new Error(`${parsed.text} does not contain ${text(bytes)}`);
      const oracle = new BlockList();
      oracle.addSubnet(text(network), prefix, family);
      const probe = parseAddress(text(other));
      if (probe.kind() === family && cidrContains(parsed, probe) !== oracle.check(text(other), family)) {
        throw new Error(`${parsed.text} and Node disagree about ${text(other)}`);
      }
      const hostBits = text(bytes) !== text(network);
      let refused: string | undefined;
      try {
        parseCidr(`${text(bytes)}/${prefix}`);
      } catch (error) {
        refused = (error as Error).message;
      }
      if (hostBits !== (refused !== undefined)) throw new Error(`${text(bytes)}/${prefix}: host bits ${hostBits}, refused ${refused}`);
      if (refused && !refused.includes(`the network is ${parsed.text} — write that, or `)) throw new Error(`message does not show the network: ${refused}`);
    }),
    RUNS,
  );
});
