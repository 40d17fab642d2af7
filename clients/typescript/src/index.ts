// @access-gateway/signing: sign requests for the access gateway's banking API (RFC 9421 HTTP Message
// Signatures with Ed25519, RFC 9530 Content-Digest), make DPoP proofs (RFC 9449) and FAPI 2.0 request
// signatures, with node:crypto only. See SIGNING.md.
export { contentDigest, DIGEST_ALGORITHMS, type DigestAlgorithm } from './content-digest.js';
export { dpopProof, dpopThumbprint, type DpopProofOptions } from './dpop.js';
export {
  FAPI_REQUEST_TAG,
  FAPI_RESPONSE_TAG,
  fapiRequestComponents,
  httpSignatureAlgorithm,
  signFapiRequest,
  signHttpMessage,
  type FapiSignedRequest,
  type FapiSigningOptions,
  type HttpSignatureAlgorithm,
} from './fapi.js';
export type {
  AnyDispatch,
  Dispatch,
  DispatchController,
  DispatchHandler,
  DispatchHeaders,
  DispatchInterceptor,
  DispatchOptions,
  DispatchResponseHeaders,
} from './dispatcher-types.js';
export { RedirectRefusedError, SignatureError, type RedirectRefusal, type SignatureFailureReason } from './errors.js';
export { signedFetch, type SignedFetchInit } from './fetch.js';
export { signingInterceptor, type SigningInterceptorOptions } from './interceptor.js';
export { generateSigningKey, publicKeyPem, rawPublicKey, sshPublicKeyLine } from './keys.js';
export { headerFields, headerFieldsFromRaw, requestFromUrl, targetFromUrl, type HeaderFields, type RequestTarget, type SignableRequest } from './message.js';
export { loadPrivateKey, PrivateKeyError, type PrivateKeyInput } from './private-key.js';
export { DEFAULT_MAX_REDIRECTS, REDIRECT_STATUSES, type FollowRedirects } from './redirects.js';
export { ACCESS_ID_HEADER, ALGORITHM, BODY_COMPONENT, REQUIRED_COMPONENTS, requiredComponents } from './profile.js';
export { signEd25519, signMessage, type SignatureFields } from './sign.js';
export {
  requestSignatureBase,
  SIGNING_HEADERS,
  signRequest,
  signRequestWithBase,
  signTarget,
  type SignedRequest,
  type SigningOptions,
  type SignRequestOptions,
} from './sign-request.js';
export { componentValue } from './components.js';
export { buildSignatureBase } from './signature-base.js';
export { descriptor, readParameters, serializeSignatureParams, type SignatureDescriptor, type SignatureParameters } from './signature-params.js';
export { DisplayString, Token, type BareItem, type Parameters } from './structured-fields.js';
