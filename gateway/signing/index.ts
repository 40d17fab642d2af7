// access-gateway/signing: everything the client package (@access-gateway/signing, whose source is
// clients/typescript/src) exports for signing, plus the gateway's side: reading Signature-Input and
// Signature, checking Content-Digest, strict Ed25519 verification. See SIGNING.md.
export * from '@access-gateway/signing';
export { checkContentDigest, parseContentDigest, type ClaimedDigests, type DigestCheck } from './content-digest.js';
export { verifyEd25519 } from './ed25519.js';
export { ed25519PublicKey } from './keys.js';
export { SignatureHeaders, type ReceivedSignature } from './signature-headers.js';
export { selectSignature, verifyReceivedSignature, verifyRequestSignature, type VerifiedSignature, type VerifyOptions } from './verify.js';
