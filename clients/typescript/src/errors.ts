// Typed failures of the signing library. `reason` is stable so callers (the gateway among them)
// can map each to their own error catalog without parsing messages.

export type SignatureFailureReason =
  | 'malformed' // a header is not valid RFC 8941 or not shaped as RFC 9421 requires
  | 'not_found' // no signature with the wanted label or keyid
  | 'ambiguous' // more than one signature matches
  | 'component_unavailable' // a covered component cannot be derived from the message
  | 'component_unsupported' // a covered component or parameter this library does not implement
  | 'algorithm_unsupported'
  | 'verification_failed';

export class SignatureError extends Error {
  constructor(
    readonly reason: SignatureFailureReason,
    message: string,
  ) {
    super(message);
    this.name = 'SignatureError';
  }
}

/** A private key that cannot be read, or is not an Ed25519 private key; the message says which and what is expected. */
export class PrivateKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PrivateKeyError';
  }
}

/** Why a redirect of a signed request was not followed (see RedirectRefusedError). */
export type RedirectRefusal =
  | 'not_followed' // followRedirects is not set: no redirect is followed
  | 'cross_origin' // followRedirects is 'same-origin' and the Location is on another origin
  | 'too_many_redirects' // more hops than maxRedirects
  | 'invalid_location'; // the Location is not an http(s) URL

/**
 * A signed request was answered with a redirect that was not followed: nothing was sent to the
 * Location. It names the status and origins only, never a header, the signature or the key.
 */
export class RedirectRefusedError extends Error {
  constructor(
    readonly reason: RedirectRefusal,
    /** The redirect's status code, e.g. 307. */
    readonly status: number,
    /** The origin that answered with the redirect. */
    readonly origin: string,
    /** The Location's origin; null when the Location is not an http(s) URL. */
    readonly locationOrigin: string | null,
    message: string,
  ) {
    super(message);
    this.name = 'RedirectRefusedError';
  }
}
