// DPoP proofs (RFC 9449 section 4): what a client sends with a token request, and with each request
// that carries a DPoP-bound access token, to prove it holds the key the token is bound to. Ed25519
// (EdDSA), P-256 (ES256) and RSA (PS256) keys, with node:crypto only.
import { createHash, createPublicKey, randomUUID, sign, constants, type KeyObject } from 'node:crypto';

export interface DpopProofOptions {
  /** The request's method, as sent. */
  method: string;
  /** The request's URL; the proof names it without query and fragment (htu). */
  url: string | URL;
  /** The DPoP-bound access token sent with the request (its hash is ath); none at the token endpoint. */
  accessToken?: string;
  /** A server-provided nonce (DPoP-Nonce), when the server asks for one. */
  nonce?: string;
  /** The proof's time (iat); now by default. */
  now?: Date;
}

/** The public JWK members RFC 7638 hashes, in its order. */
function thumbprintMembers(jwk: Record<string, string>): Record<string, string> {
  if (jwk.kty === 'OKP') return { crv: jwk.crv!, kty: jwk.kty, x: jwk.x! };
  if (jwk.kty === 'EC') return { crv: jwk.crv!, kty: jwk.kty, x: jwk.x!, y: jwk.y! };
  return { e: jwk.e!, kty: jwk.kty!, n: jwk.n! };
}

function publicJwkOf(privateKey: KeyObject): Record<string, string> {
  return thumbprintMembers(createPublicKey(privateKey).export({ format: 'jwk' }) as Record<string, string>);
}

/** The JWS algorithm a key signs proofs with; other key types are refused. */
function algorithmOf(privateKey: KeyObject): 'EdDSA' | 'ES256' | 'PS256' {
  const type = privateKey.asymmetricKeyType;
  if (type === 'ed25519') return 'EdDSA';
  if (type === 'ec' && privateKey.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ES256';
  if (type === 'rsa' && (privateKey.asymmetricKeyDetails?.modulusLength ?? 0) >= 2048) return 'PS256';
  throw new TypeError('a DPoP key must be an Ed25519, P-256 or RSA (2048 bits or more) private key');
}

/** The key's RFC 7638 thumbprint: the cnf.jkt of a token bound to it (and the gateway's x-gateway-dpop-jkt). */
export function dpopThumbprint(privateKey: KeyObject): string {
  return createHash('sha256')
    .update(JSON.stringify(publicJwkOf(privateKey)))
    .digest('base64url');
}

const part = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

/** A DPoP proof for one request: put it in the request's DPoP header (a new one for each request). */
export function dpopProof(privateKey: KeyObject, options: DpopProofOptions): string {
  if (privateKey.type !== 'private') throw new TypeError('a DPoP proof is signed with the private key');
  const alg = algorithmOf(privateKey);
  const url = new URL(options.url);
  const claims = {
    jti: randomUUID(),
    htm: options.method,
    htu: `${url.protocol}//${url.host}${url.pathname}`,
    iat: Math.floor((options.now ?? new Date()).getTime() / 1000),
    ...(options.accessToken === undefined ? {} : { ath: createHash('sha256').update(options.accessToken, 'ascii').digest('base64url') }),
    ...(options.nonce === undefined ? {} : { nonce: options.nonce }),
  };
  const input = Buffer.from(`${part({ typ: 'dpop+jwt', alg, jwk: publicJwkOf(privateKey) })}.${part(claims)}`, 'ascii');
  const signature =
    alg === 'EdDSA'
      ? sign(null, input, privateKey)
      : alg === 'ES256'
        ? sign('sha256', input, { key: privateKey, dsaEncoding: 'ieee-p1363' })
        : sign('sha256', input, { key: privateKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST });
  return `${input.toString('ascii')}.${signature.toString('base64url')}`;
}
