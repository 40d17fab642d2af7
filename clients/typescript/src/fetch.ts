// fetch() with the request signed for the gateway. The body must be bytes or text: its digest is
// signed, so a stream would have to be read whole first anyway.
import type { PrivateKeyInput } from './private-key.js';
import { SIGNING_HEADERS, signRequestWithBase, type SignedRequest, type SigningOptions } from './sign-request.js';

export interface SignedFetchInit extends Omit<RequestInit, 'body' | 'headers'>, SigningOptions {
  headers?: Record<string, string>;
  body?: Uint8Array | string;
  privateKey: PrivateKeyInput;
  /** Called with the headers added and the signature base, e.g. to log the base when the gateway answers 401. */
  onSigned?: (signed: SignedRequest) => void;
}

export function signedFetch(url: string | URL, init: SignedFetchInit): Promise<Response> {
  const { accessId, privateKey, coverHeaders, created, expires, nonce, digestAlgorithm, onSigned, headers = {}, body, method = 'GET', ...rest } = init;
  const options = { accessId, coverHeaders, created, expires, nonce, digestAlgorithm };
  const signed = signRequestWithBase({ ...options, method, url, headers, ...(body === undefined ? {} : { body }), privateKey });
  onSigned?.(signed);
  // The request's own values of the signing headers are dropped: they would be sent twice.
  const own = Object.entries(headers).filter(([name]) => !SIGNING_HEADERS.includes(name.toLowerCase()));
  return fetch(url, { ...rest, method, headers: { ...Object.fromEntries(own), ...signed.headers }, ...(body === undefined ? {} : { body }) });
}
