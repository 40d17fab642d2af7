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
  constructor(readonly reason: SignatureFailureReason, message: string) {
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
