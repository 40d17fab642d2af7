// A bearer route with message_signing: fapi-2 (the FAPI 2.0 HTTP signature profile): once the access
// token checked out, the request's RFC 9421 signature by one of the client's registered keys.
//   verify (stage 2)  from the headers and the client record the token's check already read: the
//       signature with tag="fapi-2-request", its coverage (@method, @target-uri, authorization, dpop
//       when sent, content-digest for a body), created within a minute, keyid naming a registered
//       key, alg (if given) the key's, the declared body size, and the signature itself. No store
//       access and no body read.
//   admit (stage 5)   the nonce, if the client sent one, used up on every instance; then the body,
//       read within the limits and checked against the signed Content-Digest.
import type { Settings } from '../../config/settings.js';
import { GatewayError, type ErrorCode } from '../../errors.js';
import type { BodyBudget } from '../../http/body-budget.js';
import type { ClaimedDigests } from '../../signing/content-digest.js';
import { httpSignatureAlgorithmOf, httpSignatureVerifies } from '../../oauth/http-signature-algorithms.js';
import type { AnsweredRequest } from '../../signing/response-signature.js';
import { SignatureHeaders, type ReceivedSignature } from '../../signing/signature-headers.js';
import { CLOCK_SKEW_SECONDS } from '../../signing/signature-window.js';
import type { ClientRecord, CredentialStore } from '../../store/types.js';
import {
  buildSignatureBase,
  FAPI_REQUEST_TAG,
  fapiRequestComponents,
  serializeSignatureParams,
  SignatureError,
  type HeaderFields,
} from '@access-gateway/signing';
import type { BodySource } from '../body-source.js';
import type { IdentifiedRequest } from '../identify.js';
import { admitSignedBody } from './signature/admission.js';
import { checkDeclaredLength } from './signature/request-body.js';
import { receivedHeaders, receivedRequest } from './signature/signed-request.js';
import { checkCreated, checkDigestHeader, MAX_NONCE_LENGTH, SIGNATURE_ERRORS } from './signature/signature-policy.js';

/** How old a signature may be: the profile recommends a minute. */
const FAPI_SIGNATURE_MAX_AGE_SECONDS = 60;

// The signature is chosen by its tag, not by a keyid: none found means the request is not signed so.
const FAPI_SIGNATURE_ERRORS: Record<SignatureError['reason'], ErrorCode> = { ...SIGNATURE_ERRORS, not_found: 'signature_missing' };

/** What stage 2 verified and stage 5 still needs; what the response signature covers of the request. */
export interface VerifiedFapiSignature {
  readonly created: number;
  readonly nonce: string | undefined;
  readonly claimedDigests: ClaimedDigests | undefined;
  readonly answered: AnsweredRequest;
}

function joined(headers: HeaderFields, name: string): string | undefined {
  const values = headers.get(name);
  return values === undefined || values.length === 0 ? undefined : values.join(', ');
}

function checkCoverage(signature: ReceivedSignature, required: readonly string[]): void {
  const missing = required.filter((component) => !signature.components.includes(component));
  if (missing.length > 0)
    throw new GatewayError('signature_components_missing', `The signature must also cover ${missing.map((c) => JSON.stringify(c)).join(' ')}.`);
}

/** created (within the minute), expires and nonce (optional, single-use when sent); returns the nonce. */
function checkTimes(signature: ReceivedSignature, nowSeconds: number): string | undefined {
  const { created, expires, nonce } = signature.params;
  if (created === undefined) throw new GatewayError('signature_parameters_invalid', 'The signature has no created parameter.');
  checkCreated(created, nowSeconds, FAPI_SIGNATURE_MAX_AGE_SECONDS);
  if (expires !== undefined && (expires < created || nowSeconds >= expires))
    throw new GatewayError('signature_expired', 'The signature has expired (or expires before it was created).');
  if (nonce !== undefined && (nonce.length === 0 || nonce.length > MAX_NONCE_LENGTH))
    throw new GatewayError('signature_parameters_invalid', `A nonce parameter must have 1 to ${MAX_NONCE_LENGTH} characters.`);
  return nonce;
}

/** The registered key the keyid names, with alg (if given) the one that key signs with. */
function keyOf(signature: ReceivedSignature, client: ClientRecord): Record<string, string> {
  const { keyid, alg } = signature.params;
  if (keyid === undefined)
    throw new GatewayError('signature_parameters_invalid', "The signature needs a keyid parameter: the kid of one of the client's registered keys.");
  const key = client.jwks.find((k) => k.kid === keyid)?.jwk;
  if (key === undefined) {
    const why =
      client.jwks.length === 0
        ? 'the client has no registered keys (a private_key_jwt client has)'
        : "it is not the kid of one of the client's registered keys";
    throw new GatewayError('signature_keyid_mismatch', `The signature's keyid names no key of this client: ${why}.`);
  }
  const algorithm = httpSignatureAlgorithmOf(key);
  if (alg !== undefined && alg !== algorithm)
    throw new GatewayError('signature_algorithm_unsupported', `The key ${keyid} signs with alg "${algorithm}" (got ${JSON.stringify(alg)}).`);
  return key;
}

/** The base a 401 shows, with the access token left out: the client has it, a log of the answer should not. */
function shownBase(base: string): string {
  return base.replace(/^"authorization": .*$/m, '"authorization": <the Authorization header sent>');
}

export class FapiRequestSignatures {
  constructor(
    private readonly store: Pick<CredentialStore, 'consumeTokenId'>,
    private readonly settings: Pick<Settings, 'maxBodyBytes'>,
    private readonly bodyBudget: BodyBudget,
    private readonly nowSeconds: () => number = () => Math.floor(Date.now() / 1000),
  ) {}

  /** Stage 2: the signature, from the headers and the client record alone; throws the refusal. */
  verify(request: IdentifiedRequest, client: ClientRecord): VerifiedFapiSignature {
    try {
      return this.verified(request, client);
    } catch (error) {
      if (error instanceof SignatureError) throw new GatewayError(FAPI_SIGNATURE_ERRORS[error.reason], error.message);
      throw error;
    }
  }

  private verified(request: IdentifiedRequest, client: ClientRecord): VerifiedFapiSignature {
    const original = request.original;
    const headers = receivedHeaders(original);
    const input = joined(headers, 'signature-input');
    const value = joined(headers, 'signature');
    if (input === undefined || value === undefined)
      throw new GatewayError(
        'signature_missing',
        `This route needs a FAPI 2.0 request signature: Signature-Input and Signature with tag="${FAPI_REQUEST_TAG}" (SIGNING.md).`,
      );
    const signature = SignatureHeaders.parse(input, value).byTag(FAPI_REQUEST_TAG);
    checkCoverage(signature, fapiRequestComponents(headers.has('dpop'), original.hasBody));
    const nonce = checkTimes(signature, this.nowSeconds());
    const key = keyOf(signature, client);
    const claimedDigests = checkDigestHeader(joined(headers, 'content-digest'), original.hasBody, signature);
    checkDeclaredLength(original, this.settings.maxBodyBytes);
    const signed = { ...receivedRequest(request, headers), scheme: original.protocol };
    const base = buildSignatureBase(signed, signature);
    if (!httpSignatureVerifies(base, signature.signature, key)) {
      throw new GatewayError(
        'signature_invalid',
        `The signature does not verify with the client's key ${signature.params.keyid!} over the signature base the gateway computed (signature_base); compare it with the one you signed.`,
        { details: { signature_base: shownBase(base) } },
      );
    }
    // The Signature-Input and Signature members as the response signature covers them (key=label).
    const answered: AnsweredRequest = {
      request: signed,
      signature: { label: signature.label, input: serializeSignatureParams(signature), value: `:${signature.signature.toString('base64')}:` },
    };
    return { created: signature.params.created!, nonce, claimedDigests, answered };
  }

  /** Stage 5: the nonce (once, on every instance), then the body against the signed digest; resolves to the bytes read. */
  async admit(clientId: string, request: IdentifiedRequest, verified: VerifiedFapiSignature, source: BodySource): Promise<Buffer | undefined> {
    if (verified.nonce !== undefined) {
      const until = verified.created + FAPI_SIGNATURE_MAX_AGE_SECONDS + CLOCK_SKEW_SECONDS;
      if (!(await this.store.consumeTokenId(clientId, 'signature_nonce', verified.nonce, until))) throw new GatewayError('nonce_replayed');
    }
    return admitSignedBody(request, verified.claimedDigests, source, this.settings.maxBodyBytes, this.bodyBudget);
  }
}
