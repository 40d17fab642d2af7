// Strict IP address and CIDR parsing for allow-lists and trusted proxies. Only unambiguous forms
// are accepted: dotted-quad IPv4 without leading zeros (no octal, hex or short forms) and standard
// IPv6. IPv4-mapped IPv6 addresses are treated as the IPv4 address they carry.
import ipaddr from 'ipaddr.js';

export type Address = ipaddr.IPv4 | ipaddr.IPv6;
export interface Cidr {
  readonly address: Address;
  readonly prefix: number;
  /** Canonical text, e.g. 10.0.0.0/8 or 2001:db8::/32. */
  readonly text: string;
}

const DOTTED_QUAD = /^(0|[1-9]\d{0,2})(\.(0|[1-9]\d{0,2})){3}$/;

/** Parses one address, rejecting ambiguous forms; an IPv4-mapped IPv6 address becomes IPv4. */
export function parseAddress(text: string): Address {
  const trimmed = text.trim();
  if (trimmed.includes(':')) {
    const v6 = parseIPv6(trimmed);
    if (!v6) throw new Error(`${JSON.stringify(text)} is not a valid IPv6 address`);
    return v6.isIPv4MappedAddress() ? v6.toIPv4Address() : v6;
  }
  if (!DOTTED_QUAD.test(trimmed) || !ipaddr.IPv4.isValidFourPartDecimal(trimmed)) {
    throw new Error(`${JSON.stringify(text)} is not a valid IPv4 address (four decimal parts, no leading zeros)`);
  }
  return ipaddr.IPv4.parse(trimmed);
}

/** Parses "a.b.c.d", "a.b.c.d/n", an IPv6 address or "v6/n". A bare address is a host range. */
export function parseCidr(text: string): Cidr {
  const trimmed = text.trim();
  const slash = trimmed.indexOf('/');
  const addressText = slash === -1 ? trimmed : trimmed.slice(0, slash);
  const address = parseAddress(addressText);
  // The prefix is bounded by the written form: a mapped address (::ffff:a.b.c.d) is written as IPv6.
  const writtenAsV6 = addressText.includes(':');
  const max = writtenAsV6 ? 128 : 32;
  let prefix = address.kind() === 'ipv4' ? 32 : 128;
  if (slash !== -1) {
    const prefixText = trimmed.slice(slash + 1);
    if (!/^(0|[1-9]\d{0,2})$/.test(prefixText) || Number(prefixText) > max) {
      throw new Error(`${JSON.stringify(text)} has an impossible prefix length (0 to ${max} for ${writtenAsV6 ? 'IPv6' : 'IPv4'})`);
    }
    prefix = Number(prefixText);
    // A mapped IPv6 range (::ffff:a.b.c.d/n) is the IPv4 range /n-96.
    if (addressText.includes(':') && address.kind() === 'ipv4') {
      if (prefix < 96) throw new Error(`${JSON.stringify(text)} spans beyond IPv4-mapped addresses; write the IPv6 range without the mapping`);
      prefix -= 96;
    }
  }
  const network = networkOf(address, prefix);
  // Host bits set mean a typo or a misunderstanding ("203.0.113.7/0" is everyone): never guess which.
  if (network.toString() !== address.toString()) {
    const single = `${address.toString()}/${address.kind() === 'ipv4' ? 32 : 128}`;
    throw new Error(
      `${JSON.stringify(text)} has host bits set; the network is ${network.toString()}/${prefix} — write that, or ${single} for the single address`,
    );
  }
  return { address: network, prefix, text: `${network.toString()}/${prefix}` };
}

/**
 * Standard IPv6 text. An embedded dotted quad must be strict too, and is rewritten as two hex
 * groups first: ipaddr.js reads "::1.2.3.4" (IPv4-compatible, ::102:304) as if it were the mapped
 * ::ffff:1.2.3.4, which would make it the IPv4 address 1.2.3.4.
 */
function parseIPv6(text: string): ipaddr.IPv6 | undefined {
  if (text.includes('%')) return undefined;
  let hex = text;
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    if (!DOTTED_QUAD.test(tail) || !ipaddr.IPv4.isValidFourPartDecimal(tail)) return undefined;
    const [a, b, c, d] = ipaddr.IPv4.parse(tail).octets as [number, number, number, number];
    hex = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  return ipaddr.IPv6.isValid(hex) && !hex.includes('.') ? ipaddr.IPv6.parse(hex) : undefined;
}

export function parseCidrList(texts: readonly string[]): Cidr[] {
  return texts.map((t) => parseCidr(t));
}

/** The address with every bit after the first prefix bits cleared. */
export function networkOf(address: Address, prefix: number): Address {
  const bytes = address.toByteArray();
  for (let bit = prefix; bit < bytes.length * 8; bit++) {
    const index = bit >> 3;
    bytes[index] = bytes[index]! & ~(0x80 >> (bit & 7));
  }
  return ipaddr.fromByteArray(bytes);
}

export function cidrContains(range: Cidr, address: Address): boolean {
  if (range.address.kind() !== address.kind()) return false;
  return (address as ipaddr.IPv4).match(range.address, range.prefix);
}

export function anyContains(ranges: readonly Cidr[], address: Address): boolean {
  for (const range of ranges) if (cidrContains(range, address)) return true;
  return false;
}

/** Parses a socket or header address leniently enough for what Node reports (::ffff:1.2.3.4). */
export function parsePeerAddress(text: string | undefined): Address | undefined {
  if (!text) return undefined;
  try {
    const parsed = ipaddr.parse(text.trim());
    return parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress() ? (parsed as ipaddr.IPv6).toIPv4Address() : parsed;
  } catch {
    return undefined;
  }
}
