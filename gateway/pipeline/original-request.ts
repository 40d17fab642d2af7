// The request the pipeline decides on. On the public listener it is the request received; on the
// decision listener it is the request an edge proxy describes (gateway/decision/conventions.ts).
// The stages read only this, never the HTTP exchange they run in, so both modes run one pipeline.
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyRequest } from 'fastify';

export interface OriginalRequest {
  /** The method as sent (not normalised: a lower-case method must not verify as upper-case). */
  readonly method: string;
  /** Path and query as sent on the request line. */
  readonly url: string;
  /** The authority the client addressed (Host as sent, lower-cased, port kept). */
  readonly authority: string;
  readonly protocol: 'http' | 'https';
  /** Header fields of the exchange: the client's, as the edge proxy passed them on. */
  readonly headers: IncomingHttpHeaders;
  readonly rawHeaders: readonly string[];
  /** The declared body length (0 when absent or chunked). */
  readonly declaredLength: number;
  /** Whether the request carries a body, so the signature must cover its Content-Digest. */
  readonly hasBody: boolean;
  /**
   * Where the body is: the exchange's own payload ('stream'), or kept by an edge proxy that does
   * not send it ('withheld'), when its digest is the upstream's to check (policy `digest: upstream`).
   */
  readonly body: 'stream' | 'withheld';
}

/** The request as the public listener received it. */
export function receivedOriginal(request: FastifyRequest): OriginalRequest {
  const headers = request.headers;
  const declaredLength = Number(headers['content-length'] ?? 0);
  return {
    method: request.raw.method ?? request.method,
    url: request.url,
    authority: authorityOf(headers.host),
    protocol: request.protocol,
    headers,
    rawHeaders: request.raw.rawHeaders,
    declaredLength,
    hasBody: headers['transfer-encoding'] !== undefined || declaredLength > 0,
    body: 'stream',
  };
}

/** The authority as the signature covers it: the Host value as sent, trimmed and lower-cased. */
export function authorityOf(host: string | undefined): string {
  return (host ?? '').trim().toLowerCase();
}

/** The host of an authority, without its port ("[::1]:8080" -> "[::1]"). */
export function hostOfAuthority(authority: string): string {
  return authority.startsWith('[') ? authority.slice(0, authority.indexOf(']') + 1) : authority.split(':', 1)[0]!;
}
