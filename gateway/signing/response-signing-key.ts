// The key the gateway signs the responses of message_signing routes with (response-signature.ts): an
// Ed25519 private key from GATEWAY_RESPONSE_SIGNING_KEY_FILE (PKCS#8 PEM, e.g. `openssl genpkey
// -algorithm ed25519`), or one generated at start where none is configured (development; every
// instance then has its own). Its public half is published as a JWK Set at
// RESPONSE_SIGNING_JWKS_PATH, under its RFC 7638 thumbprint as kid, the keyid of each signature.
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { jwkThumbprint } from './jwk-thumbprint.js';

/** Where clients fetch the key (the name of draft-meunier-http-message-signatures-directory). */
export const RESPONSE_SIGNING_JWKS_PATH = '/.well-known/http-message-signatures-directory';

export interface ResponseSigningKey {
  readonly privateKey: KeyObject;
  /** The public key's RFC 7638 thumbprint: the keyid of every signature, the kid in the JWK Set. */
  readonly keyid: string;
  /** The public JWK as published (kty, crv, x, kid, use). */
  readonly publicJwk: Readonly<Record<string, string>>;
}

function fromPrivateKey(privateKey: KeyObject): ResponseSigningKey {
  const { kty, crv, x } = createPublicKey(privateKey).export({ format: 'jwk' }) as Record<string, string>;
  const members = { crv: crv!, kty: kty!, x: x! };
  const keyid = jwkThumbprint(members);
  return { privateKey, keyid, publicJwk: Object.freeze({ ...members, kid: keyid, use: 'sig' }) };
}

/** The key in a PEM file; throws an Error saying what is wrong (never quoting the file). */
export function readResponseSigningKey(file: string): ResponseSigningKey {
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(readFileSync(file));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code?.startsWith('E') && !code.startsWith('ERR_') ? code : 'not a private key in PEM (openssl genpkey -algorithm ed25519)';
    throw new Error(`${file} cannot be read: ${why}`, { cause: error });
  }
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error(`${file} holds a ${privateKey.asymmetricKeyType} key; an Ed25519 private key is required`);
  return fromPrivateKey(privateKey);
}

/** A key for this process alone. */
export function generatedResponseSigningKey(): ResponseSigningKey {
  return fromPrivateKey(generateKeyPairSync('ed25519').privateKey);
}

/** The JWK Set published at RESPONSE_SIGNING_JWKS_PATH. */
export function responseSigningJwks(key: ResponseSigningKey): { keys: Array<Readonly<Record<string, string>>> } {
  return { keys: [key.publicJwk] };
}
