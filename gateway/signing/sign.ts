// Signing: the generic RFC 9421 step (message + descriptor -> Signature-Input and Signature), and
// the gateway profile on top of it (signRequest, signedFetch) for API clients.
import { randomBytes, type KeyObject } from 'node:crypto';
import { serializeDictionary } from 'structured-headers';
import { contentDigest, type DigestAlgorithm } from './content-digest.js';
import { signEd25519 } from './ed25519.js';
import { loadPrivateKey } from './keys.js';
import { headerFields, requestFromUrl, type SignableRequest } from './message.js';
import { ACCESS_ID_HEADER, ALGORITHM, DEFAULT_LABEL, requiredComponents } from './profile.js';
import { buildSignatureBase } from './signature-base.js';
import { descriptor, toInnerList, type SignatureParameters } from './signature-params.js';

export interface SignatureFields {
  'signature-input': string;
  signature: string;
  /** The exact bytes that were signed (for debugging and documentation). */
  base: string;
}

/** Signs `components` of a request with an Ed25519 key under `label`. */
export function signMessage(request: SignableRequest, components: readonly string[], params: SignatureParameters, privateKey: KeyObject, label = DEFAULT_LABEL): SignatureFields {
  const signature = descriptor(components, params);
  const base = buildSignatureBase(request, signature);
  const value = signEd25519(base, privateKey);
  return {
    'signature-input': serializeDictionary(new Map([[label, toInnerList(signature)]])),
    signature: serializeDictionary(new Map([[label, [value, new Map()]]])),
    base,
  };
}

export interface SignRequestOptions {
  method: string;
  /** The absolute URL the request is sent to; its host is the signed @authority. */
  url: string | URL;
  /** Headers the request will carry anyway (content-type and so on). */
  headers?: Record<string, string>;
  body?: Uint8Array | string;
  accessId: string;
  /** A KeyObject, or key text in any form loadPrivateKey reads. */
  privateKey: KeyObject | string;
  /** Extra header fields to cover, beyond what the profile requires. */
  coverHeaders?: string[];
  /** Defaults: now, a random nonce, no expiry, sha-256. */
  created?: number;
  expires?: number;
  nonce?: string;
  digestAlgorithm?: DigestAlgorithm;
}

/** The headers to add to a request so the gateway accepts it: x-access-id, content-digest, signature-input, signature. */
export function signRequest(options: SignRequestOptions): Record<string, string> {
  const method = options.method.toUpperCase();
  const key = typeof options.privateKey === 'string' ? loadPrivateKey(options.privateKey) : options.privateKey;
  const body = options.body === undefined ? Buffer.alloc(0) : Buffer.from(options.body);
  const added: Record<string, string> = { [ACCESS_ID_HEADER]: options.accessId };
  if (body.length > 0) added['content-digest'] = contentDigest(body, options.digestAlgorithm);
  const headers = headerFields([...Object.entries(options.headers ?? {}), ...Object.entries(added)]);
  const components = [...requiredComponents(body.length > 0), ...(options.coverHeaders ?? []).map((h) => h.toLowerCase())];
  const params: SignatureParameters = {
    created: options.created ?? Math.floor(Date.now() / 1000),
    ...(options.expires === undefined ? {} : { expires: options.expires }),
    nonce: options.nonce ?? randomBytes(16).toString('base64url'),
    alg: ALGORITHM,
    keyid: options.accessId,
  };
  const signed = signMessage(requestFromUrl(method, options.url, headers), components, params, key);
  return { ...added, 'signature-input': signed['signature-input'], signature: signed.signature };
}

export interface SignedFetchInit extends Omit<RequestInit, 'body' | 'headers'> {
  headers?: Record<string, string>;
  body?: Uint8Array | string;
  accessId: string;
  privateKey: KeyObject | string;
}

/** fetch() with the request signed for the gateway. */
export function signedFetch(url: string | URL, init: SignedFetchInit): Promise<Response> {
  const { accessId, privateKey, headers = {}, body, method = 'GET', ...rest } = init;
  const added = signRequest({ method, url, headers, ...(body === undefined ? {} : { body }), accessId, privateKey });
  return fetch(url, { ...rest, method, headers: { ...headers, ...added }, ...(body === undefined ? {} : { body }) });
}
