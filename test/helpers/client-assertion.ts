// Client assertions (RFC 7523) for tests, signed with node:crypto, independently of the gateway's
// verifier: key pairs of each accepted type, their public JWKs, and a signer that writes any header
// and claims, so that tests can also make the assertions the gateway must refuse.
import { constants, createHmac, generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';

export type KeyKind = 'Ed25519' | 'P-256' | 'RSA';

export interface TestKeyPair {
  kind: KeyKind;
  alg: 'EdDSA' | 'ES256' | 'PS256';
  privateKey: KeyObject;
  publicJwk: Record<string, string>;
}

export function keyPair(kind: KeyKind, kid?: string, rsaBits = 2048): TestKeyPair {
  const pair =
    kind === 'Ed25519'
      ? generateKeyPairSync('ed25519')
      : kind === 'P-256'
        ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
        : generateKeyPairSync('rsa', { modulusLength: rsaBits });
  const publicJwk = { ...(pair.publicKey.export({ format: 'jwk' }) as Record<string, string>), ...(kid ? { kid } : {}) };
  return { kind, alg: kind === 'Ed25519' ? 'EdDSA' : kind === 'P-256' ? 'ES256' : 'PS256', privateKey: pair.privateKey, publicJwk };
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Signs header.payload as the header's alg says (none: no signature; HS256: with `hmacSecret`). */
export function signAssertion(header: Record<string, unknown>, claims: Record<string, unknown>, key: TestKeyPair | undefined, hmacSecret?: string): string {
  const input = `${b64(header)}.${b64(claims)}`;
  const data = Buffer.from(input);
  let signature: Buffer;
  switch (header.alg) {
    case 'none':
      return `${input}.`;
    case 'HS256':
      signature = createHmac('sha256', hmacSecret ?? '')
        .update(data)
        .digest();
      break;
    case 'EdDSA':
    case 'Ed25519':
      signature = sign(null, data, key!.privateKey);
      break;
    case 'ES256':
      signature = sign('sha256', data, { key: key!.privateKey, dsaEncoding: 'ieee-p1363' });
      break;
    default:
      signature = sign('sha256', data, { key: key!.privateKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 });
  }
  return `${input}.${signature.toString('base64url')}`;
}

/** Claims that pass every check for this client and audience, with `overrides` applied (undefined removes a claim). */
export function claimsFor(clientId: string, audience: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  const claims: Record<string, unknown> = { iss: clientId, sub: clientId, aud: audience, iat: now, exp: now + 60, jti: randomUUID(), ...overrides };
  for (const [name, value] of Object.entries(claims)) if (value === undefined) delete claims[name];
  return claims;
}

export const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** The token request form of an assertion. */
export function assertionForm(assertion: string, extra: Record<string, string> = {}): Record<string, string> {
  return { grant_type: 'client_credentials', client_assertion_type: ASSERTION_TYPE, client_assertion: assertion, ...extra };
}
