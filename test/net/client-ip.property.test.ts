// Property tests of X-Forwarded-For resolution against a reference model: through trusted proxies
// the client is the right-most untrusted hop; a hop that has to be read but is not a plain IP
// address is refused (forwarded_for_invalid), never skipped; nothing else is ever thrown.
import fc from 'fast-check';
import t from 'tap';
import { GatewayError } from '../../gateway/errors.js';
import { anyContains, parseAddress, parseCidrList, type Address } from '../../gateway/net/cidr.js';
import { resolveClientAddress } from '../../gateway/net/client-ip.js';
import { holds } from '../helpers/property.js';

const TRUSTED = parseCidrList(['192.0.2.0/24', '10.0.0.0/8', '2001:db8:ffff::/48']);
const isTrusted = (address: Address) => anyContains(TRUSTED, address);

const byte = fc.integer({ min: 0, max: 255 });
const trustedAddress = fc.oneof(
  byte.map((b) => `192.0.2.${b}`),
  fc.tuple(byte, byte, byte).map(([a, b, c]) => `10.${a}.${b}.${c}`),
  fc.integer({ min: 0, max: 0xffff }).map((g) => `2001:db8:ffff::${g.toString(16)}`),
  byte.map((b) => `::ffff:192.0.2.${b}`),
);
const untrustedAddress = fc.oneof(
  fc.tuple(fc.integer({ min: 11, max: 191 }), byte, byte, byte).map((o) => o.join('.')),
  // 2001:db8:ffff::/48 is trusted: the third group stops below ffff.
  fc.tuple(fc.integer({ min: 0, max: 0xfffe }), fc.integer({ min: 0, max: 0xffff })).map(([a, b]) => `2001:db8:${a.toString(16)}::${b.toString(16)}`),
  fc.constantFrom('203.0.113.9', '::1', '127.0.0.1', '::ffff:203.0.113.9', '0.0.0.0', '::'),
);
/** What proxies and clients actually write that is not a plain address (no commas: those split hops). */
const garbage = fc.oneof(
  fc.constantFrom('6.6.6.6:443', '[2001:db8::1]:443', 'unknown', 'garbage', '010.1.0.5', '127.1', 'fe80::1%eth0', '_hidden', '"10.1.0.5"', '192.0.2.1/24'),
  fc.string({ maxLength: 20 }).filter((s) => !s.includes(',') && s.trim() !== '' && !parses(s)),
);
function parses(text: string): boolean {
  try {
    parseAddress(text);
    return true;
  } catch {
    return false;
  }
}

type Hop = { kind: 'trusted' | 'untrusted' | 'garbage'; text: string };
const hop: fc.Arbitrary<Hop> = fc.oneof(
  trustedAddress.map((text) => ({ kind: 'trusted' as const, text })),
  untrustedAddress.map((text) => ({ kind: 'untrusted' as const, text })),
  garbage.map((text) => ({ kind: 'garbage' as const, text })),
);
const spacing = fc.constantFrom('', ' ', '  ', '\t');
/** The hops as one header value, or split over several header lines as Node may hand them over. */
const header = (hops: Hop[]) =>
  fc.tuple(fc.array(fc.tuple(spacing, spacing), { minLength: hops.length, maxLength: hops.length }), fc.boolean()).map(([spaces, split]) => {
    const parts = hops.map((h, i) => `${spaces[i]![0]}${h.text}${spaces[i]![1]}`);
    return split && parts.length > 1 ? [parts.slice(0, 1).join(','), parts.slice(1).join(',')] : parts.join(',');
  });
const scenario = fc
  .tuple(fc.oneof(trustedAddress, untrustedAddress), fc.array(hop, { maxLength: 6 }))
  .chain(([peer, hops]) => header(hops).map((value) => ({ peer, hops, value })));

type Expected = { address: string } | { refused: string };

/** The reference model, written from the rule rather than from the code. */
function expected(peer: string, hops: Hop[]): Expected {
  const peerAddress = parseAddress(peer);
  if (!isTrusted(peerAddress)) return { address: peerAddress.toString() };
  let client = peerAddress;
  for (let i = hops.length - 1; i >= 0; i--) {
    const h = hops[i]!;
    if (h.kind === 'garbage') return { refused: h.text.trim() };
    client = parseAddress(h.text);
    if (h.kind === 'untrusted') return { address: client.toString() };
  }
  return { address: client.toString() };
}

function actual(peer: string, value: string | string[]): Expected {
  try {
    // No address only when the socket reports none (or, here, nothing Node would report).
    return { address: resolveClientAddress(peer, value, TRUSTED)?.toString() ?? 'none' };
  } catch (error) {
    if (!(error instanceof GatewayError) || error.code !== 'forwarded_for_invalid' || error.status !== 400) throw error;
    const hopText = /entry (".*?") is not a plain IP address/.exec(error.message)?.[1];
    return { refused: hopText === undefined ? error.message : (JSON.parse(hopText) as string) };
  }
}

t.test('the resolved client matches the model; unreadable hops are refused', async (t) => {
  holds(
    t,
    fc.property(scenario, ({ peer, hops, value }) => {
      const want = expected(peer, hops);
      const got = actual(peer, value);
      if (JSON.stringify(want) !== JSON.stringify(got))
        throw new Error(`peer ${peer}, X-Forwarded-For ${JSON.stringify(value)}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
    }),
    500,
  );
});

t.test('a trusted address is never the client while an untrusted hop exists', async (t) => {
  holds(
    t,
    fc.property(scenario, ({ peer, hops, value }) => {
      const got = actual(peer, value);
      if (!('address' in got)) return;
      const peerTrusted = isTrusted(parseAddress(peer));
      const anyUntrusted = hops.some((h) => h.kind === 'untrusted');
      if (peerTrusted && anyUntrusted && isTrusted(parseAddress(got.address))) {
        throw new Error(`peer ${peer}, X-Forwarded-For ${JSON.stringify(value)}: the trusted ${got.address} came out as the client`);
      }
    }),
    500,
  );
});

t.test('arbitrary header values: an address or forwarded_for_invalid, nothing else', async (t) => {
  const value = fc.oneof(fc.string({ maxLength: 80 }), fc.string({ unit: 'binary', maxLength: 40 }), fc.array(fc.string({ maxLength: 30 }), { maxLength: 3 }));
  holds(
    t,
    fc.property(fc.oneof(trustedAddress, untrustedAddress, fc.string({ maxLength: 20 })), value, (peer, xff) => {
      const got = actual(peer, xff);
      if ('address' in got && !parses(got.address) && !(got.address === 'none' && !parses(peer))) throw new Error(`not an address: ${got.address}`);
    }),
    500,
  );
});

t.test('a hop read again (parsed hops are kept) gives the same client or the same refusal', async (t) => {
  const peer = '192.0.2.1';
  holds(
    t,
    fc.property(fc.array(fc.oneof(untrustedAddress, garbage), { minLength: 1, maxLength: 8 }), (hops) => {
      for (const text of [...hops, ...hops]) {
        const got = actual(peer, text);
        const expected = parses(text) ? { address: parseAddress(text).toString() } : { refused: text.trim() };
        if (JSON.stringify(got) !== JSON.stringify(expected))
          throw new Error(`${JSON.stringify(text)}: ${JSON.stringify(got)}, not ${JSON.stringify(expected)}`);
      }
    }),
    300,
  );
});
