// The network a client address counts as wherever failures or requests are counted per address.
// One IPv6 host commonly holds a whole /64 (SLAAC and privacy addresses, a delegated prefix), so
// counting each IPv6 address apart would give one machine 2^64 fresh budgets; an IPv4 address
// (and an IPv4-mapped IPv6 one, the same client) is counted alone.
import type ipaddr from 'ipaddr.js';
import { networkOf, type Address } from './cidr.js';

/** Prefix lengths GATEWAY_THROTTLE_IPV6_PREFIX accepts: from a large site (/32) to one address. */
export const IPV6_PREFIX_RANGE = { min: 32, max: 128 } as const;

/**
 * The counter key of a client address: the IPv4 address itself ("203.0.113.7"), or the IPv6
 * network of ipv6Prefix bits ("2001:db8:1:2::/64"); "unknown" when the socket reported none.
 * IPv4 keys have no colon and IPv6 keys always have one, so the two never meet.
 */
export function throttleKeyOf(address: Address | undefined, ipv6Prefix: number): string {
  if (!address) return 'unknown';
  if (address.kind() === 'ipv4') return address.toString();
  const v6 = address as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  return `${networkOf(v6, ipv6Prefix).toString()}/${ipv6Prefix}`;
}
