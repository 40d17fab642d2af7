// The client address the gateway authorizes: the socket peer, or, when that peer is a trusted
// proxy, the right-most X-Forwarded-For entry that is not itself a trusted proxy. Entries to the
// left of that are client-controlled and never believed (nor read).
import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError } from '../errors.js';
import { anyContains, parseAddress, parsePeerAddress, type Address, type Cidr } from './cidr.js';

/** A hop a trusted proxy wrote that is not a plain IP address (a port, "unknown", garbage). */
function invalidHop(hop: string): GatewayError {
  const shown = hop.length > 64 ? `${JSON.stringify(hop.slice(0, 64))}...` : JSON.stringify(hop);
  return new GatewayError(
    'forwarded_for_invalid',
    `X-Forwarded-For entry ${shown} is not a plain IP address (no port, brackets or names); the client address cannot be determined.`,
  );
}

/**
 * The client address; undefined only when the socket reports none. Throws GatewayError
 * forwarded_for_invalid (400) when a hop that has to be read cannot be parsed: skipping it would
 * make the client look like the proxy itself.
 *
 * A trusted peer with no X-Forwarded-For, or with only trusted hops, is a request from inside the
 * trusted range (a proxy's own health check, an internal caller): its left-most known address is
 * the client. A proxy that forwards a client always appends a hop, so a client cannot reach this.
 */
export function resolveClientAddress(
  socketAddress: string | undefined,
  forwardedFor: string | string[] | undefined,
  trustedProxies: readonly Cidr[],
): Address | undefined {
  return clientAddressFrom(parsePeerAddress(socketAddress), forwardedFor, trustedProxies);
}

/** resolveClientAddress for a peer address already parsed (peerAddressOf). */
export function clientAddressFrom(
  peer: Address | undefined,
  forwardedFor: string | string[] | undefined,
  trustedProxies: readonly Cidr[],
): Address | undefined {
  if (!peer || trustedProxies.length === 0 || !anyContains(trustedProxies, peer)) return peer;
  // Empty list items (", ,") are not hops; Node joins repeated header lines with ", ".
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : (forwardedFor ?? ''))
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  let candidate: Address = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    candidate = parseHop(hops[i]!);
    if (!anyContains(trustedProxies, candidate)) return candidate;
  }
  return candidate;
}

/**
 * Hops parsed lately: an edge proxy names the same few client addresses over and over, and parsing
 * one costs more than the rest of the client address. Only hops that parse are kept (an address is
 * at most 45 characters), and the map is emptied when full, so a stream of distinct addresses costs
 * a parse each and no more memory. The addresses are never modified.
 */
const parsedHops = new Map<string, Address>();
const PARSED_HOPS_KEPT = 4096;

/** Strict parsing: no ports, brackets, zone ids, octal or short IPv4 forms. */
function parseHop(hop: string): Address {
  let address = parsedHops.get(hop);
  if (address !== undefined) return address;
  try {
    address = parseAddress(hop);
  } catch {
    throw invalidHop(hop);
  }
  if (parsedHops.size >= PARSED_HOPS_KEPT) parsedHops.clear();
  parsedHops.set(hop, address);
  return address;
}

interface Peer {
  remoteAddress?: string | undefined;
}

interface RequestWithPeer {
  socket: Peer;
  headers: IncomingHttpHeaders;
}

const peers = new WeakMap<Peer, Address | undefined>();

/** The socket's peer address, parsed once per connection, not on every request it carries. */
export function peerAddressOf(socket: Peer): Address | undefined {
  if (peers.has(socket)) return peers.get(socket);
  const peer = parsePeerAddress(socket.remoteAddress);
  peers.set(socket, peer);
  return peer;
}

/** Whether a socket's peer is one of the trusted proxies (the decision listeners' callers); an unknown peer never is. */
export function isTrustedProxy(peer: Address | undefined, trustedProxies: readonly Cidr[]): boolean {
  return peer !== undefined && anyContains(trustedProxies, peer);
}

/** The client address of a request, through the trusted proxies (throws forwarded_for_invalid). */
export function clientAddressOf(request: RequestWithPeer, trustedProxies: readonly Cidr[]): Address | undefined {
  return clientAddressFrom(peerAddressOf(request.socket), request.headers['x-forwarded-for'], trustedProxies);
}
