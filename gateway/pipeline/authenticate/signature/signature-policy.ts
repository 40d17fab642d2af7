// The gateway's checks on a chosen signature beyond RFC 9421 itself (SIGNING.md): required
// coverage, alg, created window, expires, nonce shape, Content-Digest. Each failure is a catalog
// error, checked before the credential store is asked anything.
import { GatewayError, type ErrorCode } from '../../../errors.js';
import { isUuid } from '../../../uuid.js';
import { digestsMatch, parseContentDigest, type ClaimedDigests } from '../../../signing/content-digest.js';
import { ALGORITHM, BODY_COMPONENT, requiredComponents, type SignatureError } from '@access-gateway/signing';
import { serializeDictionary, type Item } from '@access-gateway/signing/structured-fields';
import type { ReceivedSignature } from '../../../signing/signature-headers.js';
import { CLOCK_SKEW_SECONDS } from '../../../signing/signature-window.js';

export const MAX_NONCE_LENGTH = 128;

// One code per thing the client has to fix; signature_invalid only for a signature that does not verify.
export const SIGNATURE_ERRORS: Record<SignatureError['reason'], ErrorCode> = {
  malformed: 'signature_malformed',
  not_found: 'signature_keyid_mismatch',
  ambiguous: 'signature_ambiguous',
  component_unavailable: 'signature_component_unavailable',
  component_unsupported: 'signature_component_unsupported',
  algorithm_unsupported: 'signature_algorithm_unsupported',
  verification_failed: 'signature_invalid',
};

export function checkCoverage(signature: ReceivedSignature, hasBody: boolean): void {
  const missing = requiredComponents(hasBody).filter((c) => !signature.components.includes(c));
  if (missing.length > 0) {
    throw new GatewayError('signature_components_missing', `The signature must also cover ${missing.map((c) => JSON.stringify(c)).join(' ')}.`);
  }
}

/** alg, created, expires and nonce; returns the nonce. */
export function checkParameters(signature: ReceivedSignature, windowSeconds: number, nowSeconds: number): string {
  const { alg, created, expires, nonce } = signature.params;
  if (alg !== undefined && alg !== ALGORITHM) {
    throw new GatewayError('signature_algorithm_unsupported', `The alg parameter must be "${ALGORITHM}" (got ${JSON.stringify(alg)}).`);
  }
  if (created === undefined) throw new GatewayError('signature_parameters_invalid', 'The signature has no created parameter.');
  if (nonce === undefined || nonce.length === 0 || nonce.length > MAX_NONCE_LENGTH) {
    throw new GatewayError('signature_parameters_invalid', `The signature needs a nonce parameter of 1 to ${MAX_NONCE_LENGTH} characters.`);
  }
  checkCreated(created, nowSeconds, windowSeconds);
  if (expires !== undefined) {
    if (expires < created) throw new GatewayError('signature_parameters_invalid', 'The signature expires before it was created.');
    if (nowSeconds >= expires) throw new GatewayError('signature_expired', 'The signature has expired.');
  }
  return nonce;
}

/** A signature's created against the gateway's clock and the window; the refusal states both times, so the client sees its clock's offset. */
export function checkCreated(created: number, nowSeconds: number, windowSeconds: number): void {
  const times = { created: String(created), gateway_time: String(nowSeconds) };
  const stated = `(created=${created}, the gateway's time is ${nowSeconds}: ${created - nowSeconds} s apart)`;
  if (created > nowSeconds + CLOCK_SKEW_SECONDS)
    throw new GatewayError('signature_not_yet_valid', `The signature was created in the future ${stated}; check the client clock.`, { details: times });
  if (nowSeconds - created > windowSeconds)
    throw new GatewayError('signature_expired', `The signature was created more than ${windowSeconds} seconds ago ${stated}.`, { details: times });
}

/**
 * From the headers alone: with a body, Content-Digest must be present and covered; a digest that is
 * sent must be covered and well formed. Returns the claimed digests to check against the body later.
 */
export function checkDigestHeader(digestHeader: string | undefined, hasBody: boolean, signature: ReceivedSignature): ClaimedDigests | undefined {
  if (digestHeader === undefined) {
    if (hasBody) throw new GatewayError('digest_mismatch', 'A request with a body needs a Content-Digest header (sha-256 or sha-512).');
    return undefined;
  }
  if (!signature.components.includes(BODY_COMPONENT))
    throw new GatewayError('signature_components_missing', 'The signature must cover "content-digest" when the header is sent.');
  const claimed = parseContentDigest(digestHeader);
  if (claimed === 'malformed') throw new GatewayError('digest_mismatch', 'Content-Digest is not a valid structured field dictionary of byte sequences.');
  if (claimed === 'no_supported_algorithm') throw new GatewayError('digest_mismatch', 'Content-Digest has no sha-256 or sha-512 member.');
  return claimed;
}

/** The body bytes against the digests the signed Content-Digest claims. */
export function checkBodyDigest(claimed: ClaimedDigests | undefined, body: Buffer): void {
  if (claimed === undefined) {
    if (body.length > 0) throw new GatewayError('digest_mismatch', 'A request with a body needs a Content-Digest header (sha-256 or sha-512).');
    return;
  }
  if (!digestsMatch(claimed, body)) throw new GatewayError('digest_mismatch', 'Content-Digest does not match the request body.');
}

/**
 * RFC 9421 section 5.1: what the client must sign next time, with every parameter the gateway
 * requires: created and nonce as bare (true) parameters, since the client picks their values.
 */
export function acceptSignature(hasBody: boolean, accessId: string | undefined): string {
  const params = new Map<string, string | boolean>([
    ['created', true],
    ['nonce', true],
  ]);
  if (accessId !== undefined && isUuid(accessId)) params.set('keyid', accessId);
  params.set('alg', ALGORITHM);
  const components = requiredComponents(hasBody).map((c): Item => [c, new Map()]);
  return serializeDictionary([['sig1', [components, params]]]);
}
