// The FAPI 2.0 HTTP signature profile, for routes whose policy says message_signing: fapi-2 (SIGNING.md
// section 9): an OAuth client signs each request with one of its registered keys (RFC 9421), covering
// @method, @target-uri, authorization, dpop when it is sent and content-digest for a body, with
// created, keyid and tag="fapi-2-request". Ed25519, P-256 and RSA (2048 bits or more) keys, with
// node:crypto only; the gateway signs its answers with tag="fapi-2-response".
import { constants, randomBytes, sign, type KeyObject } from 'node:crypto';
import { contentDigest, type DigestAlgorithm } from './content-digest.js';
import { headerFields, requestFromUrl } from './message.js';
import { DEFAULT_LABEL } from './profile.js';
import { buildSignatureBase } from './signature-base.js';
import { descriptor, toInnerList } from './signature-params.js';
import { serializeDictionary } from './structured-fields.js';

export const FAPI_REQUEST_TAG = 'fapi-2-request';
export const FAPI_RESPONSE_TAG = 'fapi-2-response';

/** RFC 9421 section 3.3 algorithms, one per key type a client may register. */
export type HttpSignatureAlgorithm = 'ed25519' | 'ecdsa-p256-sha256' | 'rsa-pss-sha512';

/** The components a FAPI request signature covers: the last two only when the request has them. */
export function fapiRequestComponents(hasDpop: boolean, hasBody: boolean): string[] {
  return ['@method', '@target-uri', 'authorization', ...(hasDpop ? ['dpop'] : []), ...(hasBody ? ['content-digest'] : [])];
}

/** The algorithm a private or public key signs HTTP messages with; other key types are refused. */
export function httpSignatureAlgorithm(key: KeyObject): HttpSignatureAlgorithm {
  const type = key.asymmetricKeyType;
  if (type === 'ed25519') return 'ed25519';
  if (type === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ecdsa-p256-sha256';
  if (type === 'rsa' && (key.asymmetricKeyDetails?.modulusLength ?? 0) >= 2048) return 'rsa-pss-sha512';
  throw new TypeError('an HTTP signature key must be an Ed25519, P-256 or RSA (2048 bits or more) key');
}

/** RFC 9421 sections 3.3.1, 3.3.4 and 3.3.6 over the base's bytes (ECDSA as r || s). */
export function signHttpMessage(base: string, privateKey: KeyObject): Buffer {
  const data = Buffer.from(base, 'utf8');
  switch (httpSignatureAlgorithm(privateKey)) {
    case 'ed25519':
      return sign(null, data, privateKey);
    case 'ecdsa-p256-sha256':
      return sign('sha256', data, { key: privateKey, dsaEncoding: 'ieee-p1363' });
    case 'rsa-pss-sha512':
      return sign('sha512', data, { key: privateKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 64 });
  }
}

export interface FapiSigningOptions {
  method: string;
  /** The absolute URL the request is sent to: its @target-uri. */
  url: string | URL;
  /** The headers the request carries: authorization (the access token) is required, dpop is covered when present. */
  headers: Record<string, string>;
  body?: Uint8Array | string;
  /** One of the client's registered private keys. */
  privateKey: KeyObject;
  /** The kid the key is registered under (the admin API shows it). */
  keyid: string;
  /** Defaults: now, a random nonce (the gateway accepts each nonce once), label sig1, sha-256. */
  created?: number;
  nonce?: string;
  label?: string;
  digestAlgorithm?: DigestAlgorithm;
}

export interface FapiSignedRequest {
  /** The headers to add: content-digest (with a body), signature-input, signature. */
  headers: Record<string, string>;
  /** The signature base that was signed. */
  base: string;
}

/** Signs one request of a route with message_signing: fapi-2. */
export function signFapiRequest(options: FapiSigningOptions): FapiSignedRequest {
  if (options.privateKey.type !== 'private') throw new TypeError('a request is signed with the private key');
  const given = Object.entries(options.headers).filter(([name]) => !['content-digest', 'signature-input', 'signature'].includes(name.toLowerCase()));
  if (!given.some(([name]) => name.toLowerCase() === 'authorization')) throw new TypeError('headers must carry authorization (the access token) to be covered');
  const body = options.body === undefined ? new Uint8Array(0) : typeof options.body === 'string' ? Buffer.from(options.body, 'utf8') : options.body;
  const added: Record<string, string> = body.length > 0 ? { 'content-digest': contentDigest(body, options.digestAlgorithm) } : {};
  const request = requestFromUrl(options.method.toUpperCase(), options.url, headerFields([...given, ...Object.entries(added)]));
  const components = fapiRequestComponents(
    given.some(([name]) => name.toLowerCase() === 'dpop'),
    body.length > 0,
  );
  const signature = descriptor(components, {
    created: options.created ?? Math.floor(Date.now() / 1000),
    nonce: options.nonce ?? randomBytes(16).toString('base64url'),
    alg: httpSignatureAlgorithm(options.privateKey),
    keyid: options.keyid,
    tag: FAPI_REQUEST_TAG,
  });
  const base = buildSignatureBase(request, signature);
  const label = options.label ?? DEFAULT_LABEL;
  return {
    headers: {
      ...added,
      'signature-input': serializeDictionary([[label, toInnerList(signature)]]),
      signature: serializeDictionary([[label, [signHttpMessage(base, options.privateKey), new Map()]]]),
    },
    base,
  };
}
