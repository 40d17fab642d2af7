// An undici interceptor that signs every request a dispatcher sends:
//   new Agent().compose(signingInterceptor({ accessId, privateKey }))
// It adds x-access-id, Content-Digest (with a body), Signature-Input and Signature. A redirect
// answer fails the request with RedirectRefusedError unless followRedirects allows it; then fetch
// or undici's redirect interceptor (listed after this one) follows it, and each hop comes through
// here again and is signed for its own URL, with a fresh nonce. What it dispatches carries
// maxRedirections: 0, so nothing nearer the connection re-sends the signed headers itself.
import type { AnyDispatch, Dispatch, DispatchHandler, DispatchInterceptor, DispatchOptions } from './dispatcher-types.js';
import { bodyNow, dispatchTarget, dispatchUrl, headerPairs, readBody, type HeaderPair } from './dispatch-request.js';
import { loadPrivateKey, type PrivateKeyInput } from './private-key.js';
import { guardRedirects, type RedirectCheck } from './redirect-guard.js';
import { redirectPolicy, redirectTarget, type FollowRedirects } from './redirects.js';
import { SIGNING_HEADERS, signTarget, type SignedRequest, type SigningOptions } from './sign-request.js';

export interface SigningInterceptorOptions extends Omit<SigningOptions, 'created' | 'nonce' | 'expires'> {
  privateKey: PrivateKeyInput;
  /** The origin of a Client or Pool, whose dispatches do not name one (an Agent's and fetch's do). */
  origin?: string | URL;
  /** Called with the headers added and the signature base of each request, e.g. to log the base on a 401. */
  onSigned?: (signed: SignedRequest) => void;
  /**
   * Unset, a redirect answer fails the request with RedirectRefusedError. 'same-origin' lets fetch or
   * undici's redirect interceptor follow redirects within the request's origin, 'any-origin' anywhere;
   * each hop is signed anew here. They bound the hops (fetch at 20: pass interceptors.redirect({ maxRedirections: 5 })).
   */
  followRedirects?: FollowRedirects;
}

function fail(handler: DispatchHandler, error: unknown): void {
  const reason = error instanceof Error ? error : new Error(String(error));
  if (handler.onResponseError) handler.onResponseError(null, reason);
  else handler.onError?.(reason);
}

/** The request's own header fields, less any signing header it carried (replaced, never sent twice). */
function ownHeaders(pairs: readonly HeaderPair[]): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of pairs) {
    const key = name.toLowerCase();
    if (SIGNING_HEADERS.includes(key)) continue;
    const values = [headers[key] ?? [], value].flat();
    headers[key] = values.length === 1 ? values[0]! : values;
  }
  return headers;
}

export function signingInterceptor(options: SigningInterceptorOptions): DispatchInterceptor {
  // Read once, so that a bad key fails here rather than on every request.
  const privateKey = loadPrivateKey(options.privateKey);
  const { origin, onSigned, followRedirects, ...signingOptions } = options;
  // The layer that follows counts the hops; this one only decides whether a redirect may be followed.
  const policy = redirectPolicy(followRedirects, Number.MAX_SAFE_INTEGER);

  function sign(opts: DispatchOptions, body: Uint8Array): DispatchOptions {
    const pairs = headerPairs(opts.headers);
    const target = dispatchTarget(opts, pairs, origin);
    const signed = signTarget(target, pairs, body, { ...signingOptions, privateKey });
    onSigned?.(signed);
    return { ...opts, method: target.method, headers: { ...ownHeaders(pairs), ...signed.headers }, maxRedirections: 0 };
  }

  function redirectCheck(opts: DispatchOptions): RedirectCheck {
    const from = dispatchUrl(opts, origin);
    return (statusCode, location) => {
      const target = redirectTarget(from, statusCode, location, policy, 0);
      return target instanceof Error ? target : undefined;
    };
  }

  return <D extends AnyDispatch>(next: D): D => {
    const dispatch = next as unknown as Dispatch;
    const signing: Dispatch = (opts, handler) => {
      const guarded = guardRedirects(handler, redirectCheck(opts));
      const body = bodyNow(opts.body);
      if (body !== undefined) return dispatch(sign(opts, body), guarded);
      // A stream (fetch always sends one): read it whole, since its digest is signed, then send the bytes.
      readBody(opts.body)
        .then((bytes) => dispatch({ ...sign(opts, bytes), body: bytes }, guarded))
        .catch((error: unknown) => fail(handler, error));
      return true;
    };
    return signing as unknown as D;
  };
}
