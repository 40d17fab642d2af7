// Redirects of a signed request. A signature is made for one URL: sending it again, with the Access
// ID and the body, to wherever a Location points would hand all of it to that host, and a nonce the
// gateway never saw could be replayed to it within the window. So a redirect is refused unless the
// caller opts in; then each hop is a new request, signed for its own URL with a fresh nonce.
import { RedirectRefusedError } from './errors.js';

/** Which redirects a signed request may follow; unset, none is. */
export type FollowRedirects = 'same-origin' | 'any-origin';

export const DEFAULT_MAX_REDIRECTS = 5;

/** The statuses fetch follows, and so the ones signedFetch does. */
export const REDIRECT_STATUSES: readonly number[] = [301, 302, 303, 307, 308];

/** The caller's choice, checked once: plain JavaScript callers can pass anything. */
export interface RedirectPolicy {
  followRedirects: FollowRedirects | undefined;
  maxRedirects: number;
}

export function redirectPolicy(followRedirects: unknown, maxRedirects: unknown = DEFAULT_MAX_REDIRECTS): RedirectPolicy {
  if (followRedirects !== undefined && followRedirects !== 'same-origin' && followRedirects !== 'any-origin') {
    throw new TypeError(`followRedirects must be 'same-origin' or 'any-origin' (or left out, to follow none), got ${JSON.stringify(followRedirects)}`);
  }
  if (typeof maxRedirects !== 'number' || !Number.isInteger(maxRedirects) || maxRedirects < 0) {
    throw new TypeError(`maxRedirects must be an integer of 0 or more, got ${JSON.stringify(maxRedirects)}`);
  }
  return { followRedirects, maxRedirects };
}

function httpUrl(location: string, base: URL): URL | undefined {
  try {
    const url = new URL(location, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The URL a redirect from `from` leads to when the policy lets this hop (the `hops`-th already
 * followed, counting from 0) be followed; otherwise a RedirectRefusedError that names the status and
 * the origins, and nothing else of the request.
 */
export function redirectTarget(from: URL, status: number, location: string, policy: RedirectPolicy, hops: number): URL | RedirectRefusedError {
  const answered = `${from.origin} answered ${status} with a redirect`;
  const target = httpUrl(location, from);
  if (target === undefined)
    return new RedirectRefusedError(
      'invalid_location',
      status,
      from.origin,
      null,
      `${answered} whose Location is not an http(s) URL; a signed request is not sent there`,
    );
  const to = target.origin;
  if (policy.followRedirects === undefined) {
    return new RedirectRefusedError(
      'not_followed',
      status,
      from.origin,
      to,
      `${answered} to ${to}, not followed: a signed request is not sent again to another URL unless followRedirects allows it ('same-origin' or 'any-origin'), and then each hop is signed anew`,
    );
  }
  if (policy.followRedirects === 'same-origin' && to !== from.origin) {
    return new RedirectRefusedError(
      'cross_origin',
      status,
      from.origin,
      to,
      `${answered} to another origin, ${to}, which followRedirects: 'same-origin' does not follow ('any-origin' would sign the request for it)`,
    );
  }
  if (hops >= policy.maxRedirects) {
    return new RedirectRefusedError(
      'too_many_redirects',
      status,
      from.origin,
      to,
      `${answered} to ${to} after ${hops} redirects, the most maxRedirects allows`,
    );
  }
  return target;
}

/** Header fields that describe a body, dropped with it. */
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location', 'transfer-encoding'];
/** Credentials of the first origin, never sent to another (as fetch does), and its Host. */
const ORIGIN_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'host'];

export interface HopRequest {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body?: Uint8Array | string | undefined;
}

/**
 * The request to send to `target` after a `status` redirect, as HTTP and fetch say: 303 becomes a GET
 * (HEAD stays HEAD) without a body, 301 and 302 turn a POST into a GET without a body, 307 and 308
 * keep the method and the body. Its signature (and Content-Digest) is made anew by the caller.
 */
export function redirectedRequest(request: HopRequest, status: number, target: URL): HopRequest {
  const method = request.method.toUpperCase();
  const toGet = (status === 303 && method !== 'HEAD') || ((status === 301 || status === 302) && method === 'POST');
  const dropped = new Set([...(toGet ? BODY_HEADERS : []), ...(target.origin === request.url.origin ? [] : ORIGIN_HEADERS)]);
  const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !dropped.has(name.toLowerCase())));
  return { url: target, method: toGet ? 'GET' : request.method, headers, ...(toGet || request.body === undefined ? {} : { body: request.body }) };
}
