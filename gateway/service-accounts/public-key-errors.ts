// The two ways a public_key value is refused: a PublicKeyError says what is wrong with it (the admin
// API's 400 message); a PrivateKeyGivenError says it is a private key, which must never be stored
// and which the message must not repeat.

export class PublicKeyError extends Error {}

export class PrivateKeyGivenError extends PublicKeyError {}
