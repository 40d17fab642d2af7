// How each edge proxy describes the request it asks about. Each convention has its own path
// prefix on the decision listener, so the description is never guessed from headers a client could
// add; the edge proxy's configuration (README, "Decision API") sets or overwrites every header read
// here, and passes the client's own headers (credentials, signature, Content-Digest) as they came.
import type { IncomingMessage } from 'node:http';
import { GatewayError } from '../errors.js';
import { CLIENT_ROUTING_HEADERS, CONSUMED_CREDENTIAL_HEADERS, HOP_BY_HOP, IDENTITY_HEADERS, forwardableRequestHeader } from '../pipeline/mutate.js';
import { authorityOf, type OriginalRequest } from '../pipeline/original-request.js';
import { envoyHeadersToRemoveValue } from './envoy-headers-to-remove.js';

type ConventionName = 'nginx' | 'envoy' | 'traefik' | 'caddy';

export interface Convention {
  readonly name: ConventionName;
  /** The decision listener's path prefix of this convention. */
  readonly prefix: string;
  /** The request the edge proxy asks about (throws decision_request_invalid). */
  describe(request: IncomingMessage): OriginalRequest;
  /** nginx turns any auth_request status but 401 and 403 into 500: other refusals are answered 403. */
  readonly refusalStatuses?: readonly number[];
  /** What this edge needs on an allowed answer besides the identity headers the decision vouches for. */
  completeAllowed?(request: IncomingMessage, headers: Record<string, string>): void;
}

/** An HTTP method: a token (RFC 9110 5.6.2). */
export const METHOD = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

function required(request: IncomingMessage, name: string, convention: ConventionName): string {
  const value = header(request, name);
  if (value === undefined || value === '')
    throw new GatewayError(
      'decision_request_invalid',
      `The ${convention} decision request has no ${name} header; configure the edge proxy as the README shows.`,
    );
  return value;
}

function methodFrom(value: string, name: string): string {
  if (!METHOD.test(value)) throw new GatewayError('decision_request_invalid', `${name} is not an HTTP method.`);
  return value;
}

function originFormUrl(value: string, name: string): string {
  if (!value.startsWith('/')) throw new GatewayError('decision_request_invalid', `${name} must be the request target in origin form (starting with /).`);
  return value;
}

function protocolOf(request: IncomingMessage): 'http' | 'https' {
  return header(request, 'x-forwarded-proto')?.trim().toLowerCase() === 'https' ? 'https' : 'http';
}

/** A stated byte count, or undefined when none was stated. */
function statedLength(value: string | undefined, name: string): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (!/^\d{1,15}$/.test(value.trim())) throw new GatewayError('decision_request_invalid', `${name} is not a byte count.`);
  return Number(value);
}

function lengthOf(value: string | undefined, name: string): number {
  return statedLength(value, name) ?? 0;
}

/** The decision request's own body, when the edge proxy sends the client's body in it. */
function ownLength(request: IncomingMessage): { length: number; chunked: boolean } {
  return { length: lengthOf(header(request, 'content-length'), 'Content-Length'), chunked: request.headers['transfer-encoding'] !== undefined };
}

/**
 * Whether a request whose body the edge proxy keeps has one, from the facts the edge states about it:
 * a declared length, a Transfer-Encoding, and the protocol it arrived over. HTTP/1.x frames every body
 * with one of the two, so neither means none; HTTP/2 and HTTP/3 send a body in DATA frames that may
 * come without a Content-Length, so there neither means "unknown", which is taken as "has a body".
 */
export function withheldBodyPresent(declaredLength: number | undefined, transferEncoding: string | undefined, protocol: string): boolean {
  if (transferEncoding !== undefined) return true;
  if (declaredLength !== undefined) return declaredLength > 0;
  return !/^HTTP\/1\.[01]$/i.test(protocol.trim());
}

/** Methods that carry a body: when the edge proxy keeps the body, such a request is taken to have one. */
export const BODY_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH']);

/**
 * CGI-style frameworks read x_gateway_client_id as X-Gateway-Client-Id. The proxy drops such a
 * spelling of a header its rule drops; an edge that cannot (Traefik removes by exact name only) would
 * pass it on, so a decision request that carries one is refused. nginx and Envoy drop underscore
 * names before they ask, and the Caddyfile removes the X_ ones.
 */
function refuseUnderscoreSpellings(request: IncomingMessage): void {
  for (const name in request.headers) {
    if (name.includes('_') && !forwardableRequestHeader(name.replaceAll('_', '-'))) {
      throw new GatewayError(
        'bad_request',
        `The request carries ${name}, an underscore spelling of a header the gateway sets or drops (${name.replaceAll('_', '-')}); send it without.`,
      );
    }
  }
}

/**
 * What nginx and Traefik drop of the proxy's rule, both able to remove headers by exact name only:
 * the names every edge configuration removes or sets itself (test/decision/edge-header-rules.test.ts
 * holds the files to it) and the hop-by-hop headers no proxy forwards.
 */
const DROPPED_BY_EXACT_NAME: ReadonlySet<string> = new Set([
  ...CONSUMED_CREDENTIAL_HEADERS,
  ...IDENTITY_HEADERS,
  ...CLIENT_ROUTING_HEADERS,
  ...HOP_BY_HOP,
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'host',
  'expect',
]);

/**
 * A header the rule drops by pattern (X-Custom-Client-IP, X-Forwarded-Foo, X-Gateway-Foo) but that
 * is none of those names would pass an edge that removes by exact name: its decision request is refused.
 */
export function droppedOnlyByPattern(name: string): boolean {
  // Underscore spellings are refuseUnderscoreSpellings' business.
  return !name.includes('_') && !DROPPED_BY_EXACT_NAME.has(name) && !forwardableRequestHeader(name);
}

function refuseDroppedOnlyByPattern(request: IncomingMessage): void {
  for (const name in request.headers) {
    if (droppedOnlyByPattern(name)) {
      throw new GatewayError(
        'bad_request',
        `The request carries ${name}, a header the gateway drops (it claims a client address, a method, a URL or the gateway's own) and this edge proxy cannot remove; send it without.`,
      );
    }
  }
}

function describeWith(
  request: IncomingMessage,
  parts: Pick<OriginalRequest, 'method' | 'url' | 'authority' | 'declaredLength' | 'hasBody' | 'body'>,
): OriginalRequest {
  // Without it the client address would be the edge proxy's own, and allow-lists would judge that.
  if (header(request, 'x-forwarded-for') === undefined) {
    throw new GatewayError('decision_request_invalid', 'The decision request has no X-Forwarded-For: the edge proxy must name the client address.');
  }
  refuseUnderscoreSpellings(request);
  // The edge proxy may not say whether a body came (it drops Content-Length): a method that carries
  // one is taken to have one, so the signature must cover a Content-Digest.
  const hasBody = parts.hasBody || (parts.body === 'withheld' && BODY_METHODS.has(parts.method));
  // Built field by field in receivedOriginal's order, not spread: one object shape for both
  // listeners' requests (a spread measured about 2 µs a decision).
  return {
    method: parts.method,
    url: parts.url,
    authority: parts.authority,
    protocol: protocolOf(request),
    headers: request.headers,
    rawHeaders: request.rawHeaders,
    declaredLength: parts.declaredLength,
    hasBody,
    body: parts.body,
  };
}

/**
 * nginx auth_request: a subrequest without the body. X-Original-Method and X-Original-URI carry the
 * request line, Host the client's Host, X-Original-Protocol the protocol the client spoke, and
 * X-Original-Content-Length and X-Original-Transfer-Encoding whether a body came (nginx drops a
 * header whose value is empty, so a client cannot blank them). Over HTTP/2 and HTTP/3 a body without
 * a Content-Length is unknown to nginx at this point and is taken as present; the shipped file drops
 * the body of such a GET or HEAD and says so with X-Original-Content-Length: 0.
 */
const nginx: Convention = {
  name: 'nginx',
  prefix: '/nginx',
  refusalStatuses: [401, 403],
  describe(request) {
    refuseDroppedOnlyByPattern(request);
    const stated = statedLength(header(request, 'x-original-content-length'), 'X-Original-Content-Length');
    const bodyPresent = withheldBodyPresent(stated, header(request, 'x-original-transfer-encoding'), required(request, 'x-original-protocol', 'nginx'));
    return describeWith(request, {
      method: methodFrom(required(request, 'x-original-method', 'nginx'), 'X-Original-Method'),
      url: originFormUrl(required(request, 'x-original-uri', 'nginx'), 'X-Original-URI'),
      authority: authorityOf(header(request, 'host')),
      declaredLength: stated ?? 0,
      hasBody: bodyPresent || header(request, 'content-digest') !== undefined,
      body: 'withheld',
    });
  },
};

/**
 * Envoy ext_authz (HTTP service): the original method, path_prefix + the original path, the
 * original Host and the allowed headers. With with_request_body the body comes too, marked by
 * x-envoy-auth-partial-body; without it Envoy sends Content-Length: 0 and keeps the body.
 */
const ENVOY_PREFIX = '/envoy';

const envoy: Convention = {
  name: 'envoy',
  prefix: ENVOY_PREFIX,
  describe(request) {
    const partial = header(request, 'x-envoy-auth-partial-body');
    if (partial !== undefined && partial.trim().toLowerCase() !== 'false') throw new GatewayError('body_partial');
    const own = ownLength(request);
    const sent = partial !== undefined;
    return describeWith(request, {
      method: methodFrom(request.method ?? '', 'The method'),
      url: originFormUrl((request.url ?? '').slice(ENVOY_PREFIX.length), `The path after ${ENVOY_PREFIX}`),
      authority: authorityOf(header(request, 'host')),
      declaredLength: sent ? own.length : 0,
      hasBody: sent ? own.length > 0 || own.chunked : header(request, 'content-digest') !== undefined,
      body: sent ? 'stream' : 'withheld',
    });
  },
  completeAllowed(request, headers) {
    headers['x-envoy-auth-headers-to-remove'] = envoyHeadersToRemoveValue(Object.keys(request.headers), ANSWERED_BY_ENVOY_HTTP);
  },
};

/**
 * The identity headers carry the decision's answer (allowed_upstream_headers copies those it sets;
 * envoy.yaml removes a client's x-gateway-* before it asks): never named for removal.
 */
const ANSWERED_BY_ENVOY_HTTP: ReadonlySet<string> = new Set(IDENTITY_HEADERS);

/**
 * Traefik forwardAuth: X-Forwarded-Method, -Uri, -Host and -Proto describe the request (Traefik
 * overwrites them); with forwardBody the body is the decision request's own.
 */
const traefik: Convention = {
  name: 'traefik',
  prefix: '/traefik',
  describe(request) {
    refuseDroppedOnlyByPattern(request);
    const own = ownLength(request);
    const sent = own.length > 0 || own.chunked;
    return describeWith(request, {
      method: methodFrom(required(request, 'x-forwarded-method', 'traefik'), 'X-Forwarded-Method'),
      url: originFormUrl(required(request, 'x-forwarded-uri', 'traefik'), 'X-Forwarded-Uri'),
      authority: authorityOf(required(request, 'x-forwarded-host', 'traefik')),
      declaredLength: own.length,
      hasBody: sent || header(request, 'content-digest') !== undefined,
      body: sent ? 'stream' : 'withheld',
    });
  },
};

/**
 * Caddy forward_auth: a GET without the body; X-Forwarded-Method, -Uri and -Host describe the request
 * (Caddy overwrites them). Caddy cannot tell a chunked body from none (Go drops Transfer-Encoding from
 * the headers), so the shipped Caddyfile refuses every body that comes without a Content-Length (411)
 * before it asks, and says so with X-Original-Unframed-Bodies: refused; its X-Original-Content-Length
 * is then the whole truth about the body. A Caddy configuration without that guard is refused.
 */
const caddy: Convention = {
  name: 'caddy',
  prefix: '/caddy',
  describe(request) {
    if (header(request, 'x-original-unframed-bodies')?.trim().toLowerCase() !== 'refused') {
      throw new GatewayError(
        'decision_request_invalid',
        'The caddy decision request has no X-Original-Unframed-Bodies: refused header: the Caddyfile must refuse bodies without a Content-Length before it asks, as deploy/edge/Caddyfile does.',
      );
    }
    const declaredLength = lengthOf(header(request, 'x-original-content-length'), 'X-Original-Content-Length');
    return describeWith(request, {
      method: methodFrom(required(request, 'x-forwarded-method', 'caddy'), 'X-Forwarded-Method'),
      url: originFormUrl(required(request, 'x-forwarded-uri', 'caddy'), 'X-Forwarded-Uri'),
      authority: authorityOf(required(request, 'x-forwarded-host', 'caddy')),
      declaredLength,
      hasBody: declaredLength > 0 || header(request, 'content-digest') !== undefined,
      body: 'withheld',
    });
  },
  // copy_headers (Caddy 2.6) writes its placeholder's text upstream for a header the answer lacks:
  // every identity header is answered, empty when it does not apply.
  completeAllowed(_request, headers) {
    for (const name of IDENTITY_HEADERS) headers[name] ??= '';
  },
};

export const CONVENTION_LIST: readonly Convention[] = [nginx, envoy, traefik, caddy];
