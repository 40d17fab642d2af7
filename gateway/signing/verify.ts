// Generic RFC 9421 verification with Ed25519 (section 3.2): pick the signature, rebuild its base
// from the message, check the algorithm, verify. Freshness, nonces and which components must be
// covered are application policy; the gateway adds its own on top (service-accounts/).
import type { KeyObject } from 'node:crypto';
import { verifyEd25519 } from './ed25519.js';
import { ALGORITHM, buildSignatureBase, SignatureError, type SignableRequest } from '@access-gateway/signing';
import { SignatureHeaders, type ReceivedSignature } from './signature-headers.js';

export interface VerifyOptions {
  /** Choose the signature by label, or by keyid; with neither the message must carry exactly one. */
  label?: string;
  keyid?: string;
  /** A KeyObject, or the 32 raw public key bytes. */
  publicKey: KeyObject | Uint8Array;
}

export interface VerifiedSignature {
  signature: ReceivedSignature;
  base: string;
}

function headerValue(request: SignableRequest, name: string): string {
  const values = request.headers.get(name);
  if (!values || values.length === 0) throw new SignatureError('not_found', `The message has no ${name} header.`);
  return values.join(', ');
}

export function selectSignature(headers: SignatureHeaders, options: { label?: string; keyid?: string }): ReceivedSignature {
  if (options.label !== undefined) return headers.byLabel(options.label);
  if (options.keyid !== undefined) return headers.byKeyId(options.keyid);
  return headers.single();
}

/** Checks the chosen signature's alg (if given) and its bytes against the rebuilt base; throws SignatureError. */
export function verifyReceivedSignature(request: SignableRequest, signature: ReceivedSignature, publicKey: KeyObject | Uint8Array): VerifiedSignature {
  if (signature.params.alg !== undefined && signature.params.alg !== ALGORITHM) {
    throw new SignatureError('algorithm_unsupported', `The alg parameter must be ${ALGORITHM} (got ${JSON.stringify(signature.params.alg)}).`);
  }
  const base = buildSignatureBase(request, signature);
  if (!verifyEd25519(base, signature.signature, publicKey)) throw new SignatureError('verification_failed', 'The signature does not verify.');
  return { signature, base };
}

/** Verifies an Ed25519 message signature carried in the request's Signature-Input and Signature. */
export function verifyRequestSignature(request: SignableRequest, options: VerifyOptions): VerifiedSignature {
  const headers = SignatureHeaders.parse(headerValue(request, 'signature-input'), headerValue(request, 'signature'));
  return verifyReceivedSignature(request, selectSignature(headers, options), options.publicKey);
}
