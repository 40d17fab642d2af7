// The request an Envoy gRPC Check describes (attributes.request.http), as the checks read it: the
// same OriginalRequest the HTTP conventions build (conventions.ts), from the message's fields rather
// than from the headers of a decision request. The client address is attributes.source.address, the
// downstream peer Envoy saw, never a header a client could write: it stands in for X-Forwarded-For,
// so the identify stage (which believes the last hop a trusted peer names) reads exactly it.
import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError } from '../../errors.js';
import { parseAddress, type Address } from '../../net/cidr.js';
import { authorityOf, type OriginalRequest } from '../../pipeline/original-request.js';
import { BODY_METHODS, METHOD } from '../conventions.js';
import type { CheckRequest, HttpRequest } from './check-messages.js';

export interface DescribedCheck {
  readonly original: OriginalRequest;
  /** The body Envoy sent (with_request_body), whole; undefined when it kept the body (or there was none). */
  readonly body: Buffer | undefined;
  readonly clientAddress: Address;
  /** The header names Envoy described (lower-case, pseudo-headers left out): what headers_to_remove is chosen from. */
  readonly headerNames: readonly string[];
}

/** Envoy's mark on a Check that carries the body: "true" when it holds only part of it. */
const PARTIAL_BODY = 'x-envoy-auth-partial-body';

function invalid(problem: string): GatewayError {
  return new GatewayError('decision_request_invalid', `The Check request ${problem}; configure Envoy as the README (Envoy over gRPC) shows.`);
}

/** attributes.source.address: Envoy's downstream peer, an IP socket address. */
function clientAddressOf(request: CheckRequest): Address {
  const address = request.attributes?.source?.address?.socket_address?.address;
  if (address === undefined || address === '') throw invalid('has no attributes.source.address.socket_address (the client address)');
  try {
    return parseAddress(address);
  } catch {
    throw invalid(`names a client address that is not an IP address (attributes.source.address: ${JSON.stringify(address.slice(0, 64))})`);
  }
}

/**
 * The header field lines Envoy described: a header_map (encode_raw_headers: each line apart, its
 * bytes in raw_value) or the headers map (repeated fields joined by Envoy). Pseudo-headers are left
 * out: the message's own fields carry the method, path, authority and scheme.
 */
function fieldLines(http: HttpRequest): [string, string][] {
  const raw = http.header_map?.headers ?? [];
  const lines: [string, string][] =
    raw.length > 0
      ? raw.map((field) => [field.key ?? '', field.raw_value && field.raw_value.length > 0 ? field.raw_value.toString('latin1') : (field.value ?? '')])
      : Object.entries(http.headers ?? {});
  return lines.map(([name, value]): [string, string] => [name.toLowerCase(), value]).filter(([name]) => name !== '' && !name.startsWith(':'));
}

/** The fields as Node would give them (repeated ones joined with ", "), with the authority and the client address Envoy vouches for. */
function headerFields(lines: readonly [string, string][], host: string, clientAddress: Address): { headers: IncomingHttpHeaders; rawHeaders: string[] } {
  // No prototype: a field may be named constructor or __proto__.
  const headers = Object.create(null) as Record<string, string>;
  const rawHeaders: string[] = [];
  for (const [name, value] of lines) {
    if (name === 'host' || name === 'x-forwarded-for') continue;
    const before = headers[name];
    headers[name] = before === undefined ? value : `${before}, ${value}`;
    rawHeaders.push(name, value);
  }
  headers.host = host;
  headers['x-forwarded-for'] = clientAddress.toString();
  rawHeaders.push('host', host, 'x-forwarded-for', headers['x-forwarded-for']);
  return { headers, rawHeaders };
}

function lengthOf(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (!/^\d{1,15}$/.test(value.trim())) throw new GatewayError('decision_request_invalid', 'Content-Length is not a byte count.');
  return Number(value);
}

/** The body bytes Envoy sent: raw_body (pack_as_bytes), else body (a string: exact for UTF-8 bodies). */
function sentBytes(http: HttpRequest): Buffer {
  if (http.raw_body && http.raw_body.length > 0) return http.raw_body;
  return Buffer.from(http.body ?? '', 'utf8');
}

/** Throws decision_request_invalid (a Check that does not describe an HTTP request) or body_partial. */
export function describeCheck(request: CheckRequest): DescribedCheck {
  const http = request.attributes?.request?.http;
  if (!http) throw invalid('has no attributes.request.http (the HTTP request to decide on)');
  const clientAddress = clientAddressOf(request);
  const method = http.method ?? '';
  if (!METHOD.test(method)) throw invalid('has no HTTP method in attributes.request.http.method');
  const url = http.path ?? '';
  if (!url.startsWith('/')) throw invalid('has no path in origin form (starting with /) in attributes.request.http.path');
  const lines = fieldLines(http);
  const { headers, rawHeaders } = headerFields(lines, http.host ?? '', clientAddress);
  const partial = headers[PARTIAL_BODY];
  if (typeof partial === 'string' && partial.trim().toLowerCase() !== 'false') throw new GatewayError('body_partial');
  const bytes = sentBytes(http);
  // Envoy marks a Check that carries the body; bytes without the mark are checked all the same.
  const sent = partial !== undefined || bytes.length > 0;
  const stated = lengthOf(headers['content-length']);
  // A body shorter or longer than the request said is not the request's body.
  if (sent && stated !== undefined && stated !== bytes.length) throw new GatewayError('body_partial');
  // Kept by Envoy: a body it cannot rule out counts, as with the HTTP conventions.
  const hasBody = sent
    ? bytes.length > 0
    : headers['content-digest'] !== undefined || (stated ?? 0) > 0 || headers['transfer-encoding'] !== undefined || BODY_METHODS.has(method);
  const original: OriginalRequest = {
    method,
    url,
    authority: authorityOf(http.host),
    protocol: http.scheme?.trim().toLowerCase() === 'https' ? 'https' : 'http',
    headers,
    rawHeaders,
    declaredLength: sent ? bytes.length : (stated ?? 0),
    hasBody,
    body: sent ? 'stream' : 'withheld',
  };
  return { original, body: sent && bytes.length > 0 ? bytes : undefined, clientAddress, headerNames: [...new Set(lines.map(([name]) => name))] };
}
