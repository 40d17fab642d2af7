// How each edge proxy describes the request it asks about. Each convention has its own path
// prefix on the decision listener, so the description is never guessed from headers a client could
// add; the edge proxy's configuration (README, "Decision API") sets or overwrites every header read
// here, and passes the client's own headers (credentials, signature, Content-Digest) as they came.
import type { FastifyRequest } from 'fastify';
import { GatewayError } from '../errors.js';
import { authorityOf, type OriginalRequest } from '../pipeline/original-request.js';

type ConventionName = 'nginx' | 'envoy' | 'traefik';

export interface Convention {
  readonly name: ConventionName;
  /** The decision listener's path prefix of this convention. */
  readonly prefix: string;
  /** The request the edge proxy asks about (throws decision_request_invalid). */
  describe(request: FastifyRequest): OriginalRequest;
  /** nginx turns any auth_request status but 401 and 403 into 500: other refusals are answered 403. */
  readonly refusalStatuses?: readonly number[];
}

const METHOD = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

function required(request: FastifyRequest, name: string, convention: ConventionName): string {
  const value = header(request, name);
  if (value === undefined || value === '') throw new GatewayError('decision_request_invalid', `The ${convention} decision request has no ${name} header; configure the edge proxy as the README shows.`);
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

function protocolOf(request: FastifyRequest): 'http' | 'https' {
  return header(request, 'x-forwarded-proto')?.trim().toLowerCase() === 'https' ? 'https' : 'http';
}

function lengthOf(value: string | undefined, name: string): number {
  if (value === undefined || value === '') return 0;
  if (!/^\d{1,15}$/.test(value.trim())) throw new GatewayError('decision_request_invalid', `${name} is not a byte count.`);
  return Number(value);
}

/** The decision request's own body, when the edge proxy sends the client's body in it. */
function ownLength(request: FastifyRequest): { length: number; chunked: boolean } {
  return { length: lengthOf(header(request, 'content-length'), 'Content-Length'), chunked: request.headers['transfer-encoding'] !== undefined };
}

/** Methods that carry a body: when the edge proxy keeps the body, such a request is taken to have one. */
const BODY_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH']);

function describeWith(request: FastifyRequest, parts: Pick<OriginalRequest, 'method' | 'url' | 'authority' | 'declaredLength' | 'hasBody' | 'body'>): OriginalRequest {
  // Without it the client address would be the edge proxy's own, and allow-lists would judge that.
  if (header(request, 'x-forwarded-for') === undefined) {
    throw new GatewayError('decision_request_invalid', 'The decision request has no X-Forwarded-For: the edge proxy must name the client address.');
  }
  // The edge proxy may not say whether a body came (it drops Content-Length): a method that carries
  // one is taken to have one, so the signature must cover a Content-Digest.
  const hasBody = parts.hasBody || (parts.body === 'withheld' && BODY_METHODS.has(parts.method));
  return { ...parts, hasBody, protocol: protocolOf(request), headers: request.headers, rawHeaders: request.raw.rawHeaders };
}

/**
 * nginx auth_request: a subrequest without the body. X-Original-Method and X-Original-URI carry the
 * request line, Host the client's Host, X-Original-Content-Length and X-Original-Transfer-Encoding
 * whether a body came (nginx drops a header whose value is empty, so a client cannot blank them).
 */
const nginx: Convention = {
  name: 'nginx',
  prefix: '/nginx',
  refusalStatuses: [401, 403],
  describe(request) {
    const declaredLength = lengthOf(header(request, 'x-original-content-length'), 'X-Original-Content-Length');
    return describeWith(request, {
      method: methodFrom(required(request, 'x-original-method', 'nginx'), 'X-Original-Method'),
      url: originFormUrl(required(request, 'x-original-uri', 'nginx'), 'X-Original-URI'),
      authority: authorityOf(header(request, 'host')),
      declaredLength,
      hasBody: declaredLength > 0 || header(request, 'x-original-transfer-encoding') !== undefined || header(request, 'content-digest') !== undefined,
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
      method: methodFrom(request.raw.method ?? request.method, 'The method'),
      url: originFormUrl(request.url.slice(ENVOY_PREFIX.length), `The path after ${ENVOY_PREFIX}`),
      authority: authorityOf(header(request, 'host')),
      declaredLength: sent ? own.length : 0,
      hasBody: sent ? own.length > 0 || own.chunked : header(request, 'content-digest') !== undefined,
      body: sent ? 'stream' : 'withheld',
    });
  },
};

/**
 * Traefik forwardAuth: X-Forwarded-Method, -Uri, -Host and -Proto describe the request (Traefik
 * overwrites them); with forwardBody the body is the decision request's own.
 */
const traefik: Convention = {
  name: 'traefik',
  prefix: '/traefik',
  describe(request) {
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

export const CONVENTION_LIST: readonly Convention[] = [nginx, envoy, traefik];
