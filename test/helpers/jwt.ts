// Mints tokens the gateway did not issue (or issued with the wrong claims) for Bearer-check tests:
// signed with the gateway's own key but bad claims, signed with foreign keys, or not signed at all.
import { randomUUID, createPublicKey } from 'node:crypto';
import { SignJWT, exportSPKI, generateKeyPair, type JWTPayload } from 'jose';
import type { TestGateway } from './gateway.js';

function b64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** The claims a gateway token for this client would carry, valid for an hour. */
export function goodClaims(tg: TestGateway, clientId: string, scope: string): JWTPayload {
  const now = Math.floor(Date.now() / 1000);
  return { iss: tg.settings.issuer, sub: clientId, aud: tg.settings.audience, client_id: clientId, scope, iat: now, exp: now + 3600, jti: randomUUID() };
}

/** Signs with the gateway's active private key: a genuine signature over whatever claims and header. */
export async function signWithGatewayKey(tg: TestGateway, claims: JWTPayload, header: Record<string, unknown> = {}): Promise<string> {
  const key = tg.gateway.keys.signingKey();
  return new SignJWT(claims).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'at+jwt', ...header }).sign(key.privateKey);
}

/** Signs with a freshly generated Ed25519 key the gateway has never seen, under the given kid. */
export async function signWithForeignKey(claims: JWTPayload, kid: string): Promise<string> {
  const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  return new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', kid, typ: 'at+jwt' }).sign(privateKey);
}

/** An unsecured JWT (alg none, empty signature). */
export function unsignedToken(claims: JWTPayload, kid: string): string {
  return `${b64url({ alg: 'none', typ: 'at+jwt', kid })}.${b64url(claims)}.`;
}

/** The classic key-confusion forgery: HS256 with the gateway's public key (PEM) as the HMAC secret. */
export async function hmacWithPublicKey(tg: TestGateway, claims: JWTPayload): Promise<string> {
  const key = tg.gateway.keys.signingKey();
  const pem = await exportSPKI(key.publicKey);
  const secret = new TextEncoder().encode(pem);
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: key.kid, typ: 'at+jwt' }).sign(secret);
}

/** The PEM (SPKI) of a public JWK, for libraries that take PEM. */
export function jwkToPem(jwk: Record<string, unknown>): string {
  return createPublicKey({ key: jwk as never, format: 'jwk' })
    .export({ type: 'spki', format: 'pem' })
    .toString();
}
