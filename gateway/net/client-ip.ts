// The client address the gateway authorizes: the socket peer, or, when that peer is a trusted
// proxy, the right-most X-Forwarded-For entry that is not itself a trusted proxy. Entries to the
// left of that are client-controlled and never believed.
import type { IncomingHttpHeaders } from 'node:http';
import { anyContains, parsePeerAddress, type Address, type Cidr } from './cidr.js';

export function resolveClientAddress(
  socketAddress: string | undefined,
  forwardedFor: string | string[] | undefined,
  trustedProxies: readonly Cidr[],
): Address | undefined {
  const peer = parsePeerAddress(socketAddress);
  if (!peer || trustedProxies.length === 0 || !anyContains(trustedProxies, peer)) return peer;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  let candidate: Address = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = parsePeerAddress(hops[i]);
    // An unparseable hop ends the trusted chain: the proxy before it vouched for nothing usable.
    if (!hop) return candidate;
    candidate = hop;
    if (!anyContains(trustedProxies, hop)) return hop;
  }
  return candidate;
}

interface RequestWithPeer {
  socket: { remoteAddress?: string | undefined };
  headers: IncomingHttpHeaders;
}

/** The client address of a request, through the trusted proxies. */
export function clientAddressOf(request: RequestWithPeer, trustedProxies: readonly Cidr[]): Address | undefined {
  return resolveClientAddress(request.socket.remoteAddress, request.headers['x-forwarded-for'], trustedProxies);
}

/** The same as text, for throttle keys and logs. */
export function clientAddressText(request: RequestWithPeer, trustedProxies: readonly Cidr[]): string {
  return clientAddressOf(request, trustedProxies)?.toString() ?? 'unknown';
}
