// The gateway's signing profile (SIGNING.md) on top of the generic step: x-access-id and, for a
// body, Content-Digest are added and covered with @method @authority @path @query; created, a
// random nonce, alg and keyid are set. signRequest, signedFetch and the undici interceptor all
// come through signTarget, so they sign exactly alike.
import { randomBytes } from 'node:crypto';
import { contentDigest, type DigestAlgorithm } from './content-digest.js';
import { headerFields, targetFromUrl, type RequestTarget, type SignableRequest } from './message.js';
import type { PrivateKeyInput } from './private-key.js';
import { ACCESS_ID_HEADER, ALGORITHM, BODY_COMPONENT, requiredComponents } from './profile.js';
import { buildSignatureBase } from './signature-base.js';
import { descriptor, type SignatureParameters } from './signature-params.js';
import { signMessage } from './sign.js';

/** How to sign, apart from the request itself. */
export interface SigningOptions {
  accessId: string;
  /** Extra header fields to cover, beyond what the profile requires. */
  coverHeaders?: string[];
  /** Defaults: now, a random nonce, no expiry, sha-256. */
  created?: number;
  expires?: number;
  nonce?: string;
  digestAlgorithm?: DigestAlgorithm;
}

export interface SignRequestOptions extends SigningOptions {
  method: string;
  /** The absolute URL the request is sent to; its host is the signed @authority. */
  url: string | URL;
  /** Headers the request will carry anyway (content-type and so on). */
  headers?: Record<string, string>;
  body?: Uint8Array | string;
  /** A KeyObject, or key text (PKCS#8 PEM, OpenSSH, JWK) as a string or the file's bytes. */
  privateKey: PrivateKeyInput;
}

export interface SignedRequest {
  /** The headers to add: x-access-id, content-digest (with a body), signature-input, signature. */
  headers: Record<string, string>;
  /** The signature base that was signed, to compare with the signature_base of a gateway 401. */
  base: string;
}

/** The header fields the profile writes; a request's own values of these are replaced, never sent twice. */
export const SIGNING_HEADERS: readonly string[] = [ACCESS_ID_HEADER, BODY_COMPONENT, 'signature-input', 'signature'];

interface Prepared {
  added: Record<string, string>;
  request: SignableRequest;
  components: string[];
  params: SignatureParameters;
}

function prepare(target: RequestTarget, headers: Iterable<readonly [string, string | readonly string[]]>, body: Uint8Array, options: SigningOptions): Prepared {
  // Plain JavaScript callers get here with an unset environment variable: say what is missing.
  if (typeof options.accessId !== 'string' || options.accessId === '') {
    throw new TypeError(
      `accessId is required: the service account's Access ID (a UUID), got ${options.accessId === '' ? 'an empty string' : typeof options.accessId}`,
    );
  }
  const added: Record<string, string> = { [ACCESS_ID_HEADER]: options.accessId };
  if (body.length > 0) added[BODY_COMPONENT] = contentDigest(body, options.digestAlgorithm);
  const kept = [...headers].filter(([name]) => !SIGNING_HEADERS.includes(name.toLowerCase()));
  const request = { ...target, method: target.method.toUpperCase(), headers: headerFields([...kept, ...Object.entries(added)]) };
  const components = [...requiredComponents(body.length > 0), ...(options.coverHeaders ?? []).map((h) => h.toLowerCase())];
  const params: SignatureParameters = {
    created: options.created ?? Math.floor(Date.now() / 1000),
    ...(options.expires === undefined ? {} : { expires: options.expires }),
    nonce: options.nonce ?? randomBytes(16).toString('base64url'),
    alg: ALGORITHM,
    keyid: options.accessId,
  };
  return { added, request, components, params };
}

/** Signs a request already described by its parts (the interceptor's entry: the path is as sent, never re-encoded). */
export function signTarget(
  target: RequestTarget,
  headers: Iterable<readonly [string, string | readonly string[]]>,
  body: Uint8Array,
  options: SigningOptions & { privateKey: PrivateKeyInput },
): SignedRequest {
  const { added, request, components, params } = prepare(target, headers, body, options);
  const signed = signMessage(request, components, params, options.privateKey);
  return { headers: { ...added, 'signature-input': signed['signature-input'], signature: signed.signature }, base: signed.base };
}

function bodyBytes(body: Uint8Array | string | undefined): Uint8Array {
  return body === undefined ? new Uint8Array(0) : typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
}

/** The headers and the signature base for a request to `url`. */
export function signRequestWithBase(options: SignRequestOptions): SignedRequest {
  return signTarget(targetFromUrl(options.method, options.url), Object.entries(options.headers ?? {}), bodyBytes(options.body), options);
}

/** The headers to add to a request so the gateway accepts it: x-access-id, content-digest, signature-input, signature. */
export function signRequest(options: SignRequestOptions): Record<string, string> {
  return signRequestWithBase(options).headers;
}

/**
 * The signature base the gateway rebuilds for such a request, without any key: pass the created and
 * nonce that were sent (they are in the Signature-Input header) to diff it with a 401's signature_base.
 */
export function requestSignatureBase(options: Omit<SignRequestOptions, 'privateKey' | 'created' | 'nonce'> & { created: number; nonce: string }): string {
  const { request, components, params } = prepare(
    targetFromUrl(options.method, options.url),
    Object.entries(options.headers ?? {}),
    bodyBytes(options.body),
    options,
  );
  return buildSignatureBase(request, descriptor(components, params));
}
