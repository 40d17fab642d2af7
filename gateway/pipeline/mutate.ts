// Stage 6: what the upstream receives, decided by rule rather than by a list of known names.
// An inbound header is dropped when it is
//   - spelled with an underscore: CGI-style frameworks (Rack, WSGI, PHP) read x_gateway_client_id
//     as X-Gateway-Client-Id, so no underscore spelling can be allowed to stand in for a dashed name;
//   - hop-by-hop (RFC 9110 7.6.1, and whatever Connection names) or Expect: they describe the
//     client's connection to the gateway, which answered a 100-continue itself;
//   - a credential the gateway consumed (Authorization, the signature headers, x-access-id);
//   - in the gateway's own namespace (x-gateway-*, x-request-id): identity is set only by the gateway;
//   - a client-chosen claim about where the request came from or went to (Forwarded, X-Forwarded-*,
//     anything ending in -ip such as X-Real-IP or True-Client-IP, X-Host), or a method or URL
//     override (X-HTTP-Method(-Override), X-Method-Override, X-Original-*, X-Rewrite-*,
//     X-Override-*): an upstream that honours them would act on something that was not authorized.
// The forwarding headers are then set from the gateway's own view of the connection. A client's
// traceparent and tracestate pass by this rule; with tracing on, stage 7 replaces them with the
// gateway's own, naming its span (upstream-span.ts).
import type { IncomingHttpHeaders } from 'node:http';
import type { Allowed, ResponseFields } from './verdict.js';

/** The credentials the gateway consumes: never forwarded, removed by every edge configuration too. */
export const CONSUMED_CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'dpop', 'x-access-id', 'signature', 'signature-input'] as const;

/** The headers a decision vouches for (sent upstream by the proxy, answered by a decision for the edge to copy). */
export const IDENTITY_HEADERS = [
  'x-gateway-client-id',
  'x-gateway-scopes',
  'x-gateway-account-id',
  'x-gateway-dpop-jkt',
  'x-gateway-service-account-id',
  'x-gateway-permissions',
  'x-gateway-digest',
  'x-request-id',
] as const;

/**
 * The client-chosen routing claims and overrides in common use, by name. The rule above drops them by
 * pattern; an edge proxy that can remove headers only by exact name (nginx, Traefik) lists these, and
 * test/decision/edge-header-rules.test.ts checks every shipped edge configuration against this list
 * and the rule. X-Forwarded-For, -Host and -Proto are not here: every edge sets them itself.
 */
export const CLIENT_ROUTING_HEADERS = [
  'forwarded',
  'x-forwarded-port',
  'x-forwarded-prefix',
  'x-forwarded-server',
  'x-forwarded-ssl',
  'x-forwarded-scheme',
  'x-forwarded-uri',
  'x-forwarded-method',
  'x-forwarded-path',
  'x-real-ip',
  'true-client-ip',
  'x-client-ip',
  'x-cluster-client-ip',
  'cf-connecting-ip',
  'fastly-client-ip',
  'x-host',
  'x-http-method-override',
  'x-http-method',
  'x-method',
  'x-method-override',
  'x-original-url',
  'x-original-uri',
  'x-original-method',
  'x-original-host',
  'x-rewrite-url',
  'x-override-url',
  // What nginx's decision subrequest is told the request was: set there, so a client's own would
  // reach the API unless removed by name.
  'x-original-protocol',
  'x-original-content-length',
  'x-original-transfer-encoding',
] as const;

export const HOP_BY_HOP: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'http2-settings',
]);
// Host too: the upstream gets its own (set from its address); the client's is in X-Forwarded-Host.
const DROPPED = new Set([...HOP_BY_HOP, 'host', 'expect', ...CONSUMED_CREDENTIAL_HEADERS, 'x-request-id', 'forwarded', 'x-host']);
const DROPPED_PATTERN = /^x-gateway-|^x-forwarded-|-ip$|^x-(original|rewrite|override)-|^x-(http-)?method(-override)?$|-method-override$/;

/** The request facts the forwarding headers are set from. */
export interface ConnectionView {
  requestId: string;
  /** The Host the client asked for and the route was matched on. */
  host: string | undefined;
  protocol: 'http' | 'https';
}

/** True when an inbound request header (lower-case name, as Node gives it) may reach an upstream. */
export function forwardableRequestHeader(name: string, connectionNamed?: ReadonlySet<string>): boolean {
  if (name.includes('_') || DROPPED.has(name) || DROPPED_PATTERN.test(name)) return false;
  return connectionNamed === undefined || !connectionNamed.has(name);
}

function namedByConnection(connection: string | string[] | undefined): Set<string> | undefined {
  if (connection === undefined) return undefined;
  const names = (Array.isArray(connection) ? connection.join(',') : connection).split(',').map((name) => name.trim().toLowerCase());
  return new Set(names.filter(Boolean));
}

/** Adds the names a Connection value lists that are not already dropped as hop-by-hop; undefined while there are none. */
function beyondHopByHop(value: string, named: Set<string> | undefined): Set<string> | undefined {
  for (const token of value.split(',')) {
    const name = token.trim().toLowerCase();
    if (name !== '' && !HOP_BY_HOP.has(name)) (named ??= new Set()).add(name);
  }
  return named;
}

function forwardingHeaders(verdict: Allowed, view: ConnectionView): Record<string, string> {
  const headers: Record<string, string> = { 'x-request-id': view.requestId, 'x-forwarded-proto': view.protocol };
  if (view.host) headers['x-forwarded-host'] = view.host;
  const clientAddress = verdict.request.clientAddress;
  if (clientAddress) headers['x-forwarded-for'] = clientAddress.toString();
  return Object.assign(headers, verdict.identityHeaders);
}

export function upstreamHeaders(inbound: IncomingHttpHeaders, verdict: Allowed, view: ConnectionView): IncomingHttpHeaders {
  const connectionNamed = namedByConnection(inbound.connection);
  const out: IncomingHttpHeaders = {};
  for (const name in inbound) {
    if (forwardableRequestHeader(name, connectionNamed)) out[name] = inbound[name];
  }
  return Object.assign(out, forwardingHeaders(verdict, view));
}

// Hop-by-hop response headers describe the gateway's connection to the upstream, not the client's
// connection to the gateway: forwarding "Connection: keep-alive" would override a client's
// "Connection: close" and keep its socket open.
/**
 * The upstream's response header fields (undici's raw [name, value, ...] buffers) as the flat list
 * writeHead takes, without hop-by-hop fields, and with the gateway's response fields (RateLimit-*)
 * first in their Lists: an intermediary must not make the advertised policy look more permissive
 * than its own.
 */
export function downstreamHeaderList(raw: readonly Buffer[], fields: ResponseFields | undefined): string[] {
  const list: string[] = [];
  let connectionNamed: Set<string> | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toString('latin1').toLowerCase();
    const value = raw[i + 1]!.toString('latin1');
    // Every Connection line counts; most name only hop-by-hop fields (keep-alive), dropped anyway.
    if (name === 'connection') connectionNamed = beyondHopByHop(value, connectionNamed);
    if (!HOP_BY_HOP.has(name)) list.push(name, value);
  }
  if (connectionNamed) {
    for (let i = list.length - 2; i >= 0; i -= 2) if (connectionNamed.has(list[i]!)) list.splice(i, 2);
  }
  for (const [name, ours] of Object.entries(fields ?? {})) {
    const theirs: string[] = [];
    for (let i = list.length - 2; i >= 0; i -= 2) if (list[i] === name) theirs.unshift(list.splice(i, 2)[1]!);
    list.push(name, [ours, ...theirs].join(', '));
  }
  return list;
}
