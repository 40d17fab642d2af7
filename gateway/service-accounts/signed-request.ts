// The request as received, in the form the signing library derives components from: method and
// Host as sent, path and query raw from the request line, every header field line kept.
import type { FastifyRequest } from 'fastify';
import { headerFieldsFromRaw, type HeaderFields, type SignableRequest } from '../signing/message.js';
import type { RequestContext } from '../pipeline/context.js';

export function receivedRequest(request: FastifyRequest, context: RequestContext, headers: HeaderFields): SignableRequest {
  return {
    method: request.raw.method ?? request.method,
    authority: (headers.get('host')?.[0] ?? '').trim().toLowerCase(),
    path: context.target.path,
    query: request.url.includes('?') ? context.target.query : null,
    headers,
  };
}

export function receivedHeaders(request: FastifyRequest): HeaderFields {
  return headerFieldsFromRaw(request.raw.rawHeaders);
}
