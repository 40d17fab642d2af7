// fetch() with the request signed for the gateway. The body must be bytes or text: its digest is
// signed, so a stream would have to be read whole first anyway. Redirects are never left to fetch,
// which would send the signed headers and the body to the Location as they are: a redirect is
// refused with RedirectRefusedError, or, when followRedirects allows it, followed here with the
// request signed anew for each hop (redirects.ts).
import { loadPrivateKey, type PrivateKeyInput } from './private-key.js';
import { redirectedRequest, redirectPolicy, redirectTarget, REDIRECT_STATUSES, type FollowRedirects, type HopRequest } from './redirects.js';
import { SIGNING_HEADERS, signRequestWithBase, type SignedRequest, type SigningOptions } from './sign-request.js';

export interface SignedFetchInit extends Omit<RequestInit, 'body' | 'headers' | 'redirect'>, SigningOptions {
  headers?: Record<string, string>;
  body?: Uint8Array | string;
  privateKey: PrivateKeyInput;
  /** Called with the headers added and the signature base (of each hop), e.g. to log the base when the gateway answers 401. */
  onSigned?: (signed: SignedRequest) => void;
  /**
   * Unset, a redirect rejects with RedirectRefusedError and nothing is sent to its Location.
   * 'same-origin' follows redirects within the URL's origin, 'any-origin' anywhere: each hop is
   * signed for its own URL with a fresh nonce and created (the ones given here sign the first request only).
   */
  followRedirects?: FollowRedirects;
  /** The most hops followed (default 5); one more redirect rejects with RedirectRefusedError. */
  maxRedirects?: number;
}

export async function signedFetch(url: string | URL, init: SignedFetchInit): Promise<Response> {
  const {
    accessId,
    privateKey,
    coverHeaders,
    created,
    expires,
    nonce,
    digestAlgorithm,
    onSigned,
    followRedirects,
    maxRedirects,
    headers = {},
    body,
    method = 'GET',
    ...rest
  } = init;
  const policy = redirectPolicy(followRedirects, maxRedirects);
  const key = loadPrivateKey(privateKey);
  let request: HopRequest = { url: new URL(url), method, headers, body };
  for (let hops = 0; ; hops++) {
    const fixed = hops === 0 ? { created, nonce } : {};
    const options = { accessId, coverHeaders, expires, digestAlgorithm, ...fixed };
    const signed = signRequestWithBase({
      ...options,
      method: request.method,
      url: request.url,
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: request.body }),
      privateKey: key,
    });
    onSigned?.(signed);
    // The request's own values of the signing headers are dropped: they would be sent twice.
    const own = Object.entries(request.headers).filter(([name]) => !SIGNING_HEADERS.includes(name.toLowerCase()));
    const response = await fetch(request.url, {
      ...rest,
      method: request.method,
      headers: { ...Object.fromEntries(own), ...signed.headers },
      ...(request.body === undefined ? {} : { body: request.body }),
      redirect: 'manual',
    });
    const location = response.headers.get('location');
    if (!REDIRECT_STATUSES.includes(response.status) || location === null) return response;
    // Its body is not read: free the connection before deciding.
    await response.body?.cancel();
    const target = redirectTarget(request.url, response.status, location, policy, hops);
    if (target instanceof Error) throw target;
    request = redirectedRequest(request, response.status, target);
  }
}
