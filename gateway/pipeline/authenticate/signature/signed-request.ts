// The request as received (or as an edge proxy describes it), in the form the signing library
// derives components from: method and authority as sent, path and query raw from the request line,
// every header field line kept.
import { headerFieldsFromRaw, type HeaderFields, type SignableRequest } from '@access-gateway/signing';
import type { IdentifiedRequest } from '../../identify.js';
import type { OriginalRequest } from '../../original-request.js';

export function receivedRequest(request: IdentifiedRequest, headers: HeaderFields): SignableRequest {
  const { original, target } = request;
  return {
    method: original.method,
    authority: original.authority,
    path: target.path,
    query: original.url.includes('?') ? target.query : null,
    headers,
  };
}

export function receivedHeaders(original: OriginalRequest): HeaderFields {
  return headerFieldsFromRaw(original.rawHeaders);
}
