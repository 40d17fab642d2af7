// Authenticates banking requests signed per DESIGN 2.2 (RFC 9421, Ed25519, RFC 9530). Everything
// that can be checked locally is checked first; then one store round trip returns the account
// and consumes the nonce; the signature is verified before the request counts as the account's.
import type { FastifyRequest } from 'fastify';
import type { Settings } from '../config/settings.js';
import { GatewayError, isGatewayError, type ErrorCode } from '../errors.js';
import { maskAccessId } from '../http/logging.js';
import type { Authenticator } from '../pipeline/authenticator.js';
import type { RequestContext, ServiceAccountPrincipal } from '../pipeline/context.js';
import { verifyEd25519 } from '../signing/ed25519.js';
import { SignatureError } from '../signing/errors.js';
import { ed25519PublicKey } from '../signing/keys.js';
import type { HeaderFields } from '../signing/message.js';
import { ACCESS_ID_HEADER } from '../signing/profile.js';
import { buildSignatureBase } from '../signing/signature-base.js';
import { SignatureHeaders, type ReceivedSignature } from '../signing/signature-headers.js';
import type { CredentialStore } from '../store/types.js';
import { isUuid } from '../uuid.js';
import { readRequestBody } from './request-body.js';
import { receivedHeaders, receivedRequest } from './signed-request.js';
import { acceptSignature, checkCoverage, checkDigest, checkParameters, nonceTtlSeconds } from './signature-policy.js';

const SIGNATURE_ERRORS: Record<SignatureError['reason'], ErrorCode> = {
  malformed: 'signature_invalid',
  not_found: 'signature_invalid',
  ambiguous: 'signature_invalid',
  component_unavailable: 'signature_invalid',
  component_unsupported: 'signature_invalid',
  algorithm_unsupported: 'signature_algorithm_unsupported',
  verification_failed: 'signature_invalid',
};

function asGatewayError(error: unknown): unknown {
  return error instanceof SignatureError ? new GatewayError(SIGNATURE_ERRORS[error.reason], error.message) : error;
}

function single(headers: HeaderFields, name: string): string | undefined {
  const values = headers.get(name);
  if (!values || values.length === 0) return undefined;
  if (name === ACCESS_ID_HEADER && values.length > 1) throw new GatewayError('access_id_conflict', 'Send x-access-id exactly once.');
  return values.join(', ');
}

function hasBodyHeaders(request: FastifyRequest): boolean {
  return request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;
}

export class SignatureAuthenticator implements Authenticator {
  constructor(
    private readonly store: CredentialStore,
    private readonly settings: Pick<Settings, 'signatureWindowSeconds' | 'maxBodyBytes'>,
  ) {}

  async authenticate(request: FastifyRequest, context: RequestContext): Promise<ServiceAccountPrincipal> {
    const headers = receivedHeaders(request);
    const accessId = headers.get(ACCESS_ID_HEADER)?.[0];
    try {
      return await this.verify(request, context, headers);
    } catch (thrown) {
      const error = asGatewayError(thrown);
      if (isGatewayError(error)) {
        request.log.info({ access_id: accessId === undefined ? null : maskAccessId(accessId), reason: error.code }, 'signed request rejected');
        if (error.status === 401) error.headers['accept-signature'] = acceptSignature(hasBodyHeaders(request), headers.get(ACCESS_ID_HEADER)?.length === 1 ? accessId : undefined);
      }
      throw error;
    }
  }

  private async verify(request: FastifyRequest, context: RequestContext, headers: HeaderFields): Promise<ServiceAccountPrincipal> {
    const accessId = single(headers, ACCESS_ID_HEADER);
    const signatureInput = single(headers, 'signature-input');
    const signatureValue = single(headers, 'signature');
    if (accessId === undefined || signatureInput === undefined || signatureValue === undefined) throw new GatewayError('signature_missing');
    if (!isUuid(accessId)) throw new GatewayError('unknown_access_id', 'The x-access-id header is not an Access ID.');

    const signature: ReceivedSignature = SignatureHeaders.parse(signatureInput, signatureValue).byKeyId(accessId);
    checkCoverage(signature, false);
    const nonce = checkParameters(signature, this.settings.signatureWindowSeconds, Math.floor(Date.now() / 1000));

    const body = await readRequestBody(request, this.settings.maxBodyBytes);
    const bytes = body ?? Buffer.alloc(0);
    checkCoverage(signature, bytes.length > 0);
    checkDigest(single(headers, 'content-digest'), bytes, signature);
    const base = buildSignatureBase(receivedRequest(request, context, headers), signature);

    const state = await this.store.signedRequestState(accessId, nonce, nonceTtlSeconds(this.settings.signatureWindowSeconds));
    if (!state.account) throw new GatewayError('unknown_access_id');
    if (!verifyEd25519(base, signature.signature, ed25519PublicKey(state.account.publicKeyBytes))) {
      throw new GatewayError('signature_invalid', 'The signature does not verify with this service account\'s public key.');
    }
    if (!state.nonceFresh) throw new GatewayError('nonce_replayed');

    if (body !== undefined) context.body = body;
    return { kind: 'service-account', account: state.account };
  }
}
