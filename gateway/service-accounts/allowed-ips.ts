// Allow-list input: single IPv4/IPv6 addresses and CIDR ranges, strictly parsed (gateway/net/cidr).
// Stored in canonical form so what the list shows is exactly what is enforced.
import { parseCidr } from '../net/cidr.js';

export const DEFAULT_ALLOWED_IPS = ['0.0.0.0/0', '::/0'] as const;
export const MAX_ALLOWED_IPS = 100;

/** Canonical text of one entry: a bare address stays bare, a range shows its network. */
export function canonicalAllowedIp(text: string): string {
  const range = parseCidr(text);
  const bare = !text.includes('/');
  return bare ? range.address.toString() : range.text;
}
