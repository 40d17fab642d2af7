// access-gateway/signing: sign banking requests for the gateway, and build or verify RFC 9421
// HTTP Message Signatures (Ed25519) with RFC 9530 Content-Digest. See SIGNING.md.
export { checkContentDigest, contentDigest, type DigestAlgorithm, type DigestCheck } from './content-digest.js';
export { signEd25519, verifyEd25519 } from './ed25519.js';
export { SignatureError, type SignatureFailureReason } from './errors.js';
export { ed25519PublicKey, generateSigningKey, loadPrivateKey, rawPublicKey, sshPublicKeyLine } from './keys.js';
export { headerFields, headerFieldsFromRaw, requestFromUrl, type HeaderFields, type SignableRequest } from './message.js';
export { ACCESS_ID_HEADER, ALGORITHM, BODY_COMPONENT, REQUIRED_COMPONENTS, requiredComponents } from './profile.js';
export { signMessage, signRequest, signedFetch, type SignatureFields, type SignedFetchInit, type SignRequestOptions } from './sign.js';
export { buildSignatureBase } from './signature-base.js';
export { SignatureHeaders, type ReceivedSignature } from './signature-headers.js';
export { descriptor, serializeSignatureParams, type SignatureDescriptor, type SignatureParameters } from './signature-params.js';
export { selectSignature, verifyReceivedSignature, verifyRequestSignature, type VerifiedSignature, type VerifyOptions } from './verify.js';
