// Authenticates banking requests signed per SIGNING.md (RFC 9421, Ed25519, RFC 9530), in an order
// that gives an unauthenticated client nothing to hold:
//   authenticate (before authorization)  everything the headers decide: signature fields, coverage,
//       freshness, declared body size, Content-Digest form; then the account, from one read-only
//       store round trip (with whether the nonce was used) or from the accounts this instance
//       verified before (account-cache.ts), and the signature over the headers. No store write and
//       no body read happens for a request whose signature has not verified.
//   admission (stage 5, once authorized and within the limit)  the one write, then the body
//       (admission.ts).
import type { FastifyBaseLogger } from 'fastify';
import type { Settings } from '../../../config/settings.js';
import { GatewayError, isGatewayError } from '../../../errors.js';
import type { BodyBudget } from '../../../http/body-budget.js';
import { maskAccessId } from '../../../http/logging.js';
import type { BodySource } from '../../body-source.js';
import type { IdentifiedRequest } from '../../identify.js';
import type { ServiceAccountPrincipal } from '../../principal.js';
import { CredentialChangedError, type Authentication, type Authenticator } from '../authenticator.js';
import { admitSigned, type SignedAdmissionDependencies, type VerifiedSignedRequest } from './admission.js';
import { verifyEd25519 } from '../../../signing/ed25519.js';
import { ACCESS_ID_HEADER, buildSignatureBase, SignatureError, type HeaderFields } from '@access-gateway/signing';
import { SignatureHeaders } from '../../../signing/signature-headers.js';
import { serviceAccountKeys } from '../../../store/service-account-keys.js';
import type { CredentialStore, ServiceAccountKey, ServiceAccountRecord } from '../../../store/types.js';
import { AccountCache, type CachedAccount } from './account-cache.js';
import { isUuid } from '../../../uuid.js';
import { checkDeclaredLength } from './request-body.js';
import { receivedHeaders, receivedRequest } from './signed-request.js';
import { acceptSignature, checkCoverage, checkDigestHeader, checkParameters, SIGNATURE_ERRORS } from './signature-policy.js';

function single(headers: HeaderFields, name: string): string | undefined {
  const values = headers.get(name);
  if (!values || values.length === 0) return undefined;
  if (name === ACCESS_ID_HEADER && values.length > 1) throw new GatewayError('access_id_conflict', 'Send x-access-id exactly once.');
  return values.join(', ');
}

/** Service accounts kept per instance: enough for every caller of a large bank, at about 1 KB each. */
const CACHED_ACCOUNTS = 10_000;

export class SignatureAuthenticator implements Authenticator {
  private readonly accounts = new AccountCache(CACHED_ACCOUNTS);
  private readonly admission: SignedAdmissionDependencies;

  constructor(
    private readonly store: CredentialStore,
    private readonly settings: Pick<Settings, 'signatureWindowSeconds' | 'maxBodyBytes'>,
    bodyBudget: BodyBudget,
  ) {
    this.admission = { store, settings, bodyBudget, accounts: this.accounts };
  }

  async authenticate(request: IdentifiedRequest, log: FastifyBaseLogger): Promise<Authentication> {
    const { principal, signed } = await this.explainingRefusal(request, log, () => this.verify(request));
    const admit = (body: BodySource) => this.explainingRefusal(request, log, () => admitSigned(this.admission, request, signed, body));
    return { principal, admission: { admit } };
  }

  /** Turns signing-library errors into catalog errors, logs the refusal and adds Accept-Signature to a 401. */
  private async explainingRefusal<T>(request: IdentifiedRequest, log: FastifyBaseLogger, stage: () => Promise<T>): Promise<T> {
    try {
      return await stage();
    } catch (thrown) {
      const error = thrown instanceof SignatureError ? new GatewayError(SIGNATURE_ERRORS[thrown.reason], thrown.message) : thrown;
      // A changed credential is checked again by the pipeline, not refused.
      if (isGatewayError(error) && !(error instanceof CredentialChangedError)) {
        const accessIds = receivedHeaders(request.original).get(ACCESS_ID_HEADER);
        const accessId = accessIds?.length === 1 ? accessIds[0] : undefined;
        log.info({ access_id: accessId === undefined ? null : maskAccessId(accessId), reason: error.code }, 'signed request rejected');
        if (error.status === 401) error.headers['accept-signature'] = acceptSignature(request.original.hasBody, accessId);
      }
      throw error;
    }
  }

  private async verify(request: IdentifiedRequest): Promise<{ principal: ServiceAccountPrincipal; signed: VerifiedSignedRequest }> {
    const original = request.original;
    const headers = receivedHeaders(original);
    const accessId = single(headers, ACCESS_ID_HEADER);
    const signatureInput = single(headers, 'signature-input');
    const signatureValue = single(headers, 'signature');
    if (accessId === undefined || signatureInput === undefined || signatureValue === undefined) throw new GatewayError('signature_missing');
    if (!isUuid(accessId)) throw new GatewayError('unknown_access_id', 'The x-access-id header is not an Access ID.');

    const signature = SignatureHeaders.parse(signatureInput, signatureValue).byKeyId(accessId);
    const hasBody = original.hasBody;
    checkCoverage(signature, hasBody);
    const nonce = checkParameters(signature, this.settings.signatureWindowSeconds, Math.floor(Date.now() / 1000));
    const claimedDigests = checkDigestHeader(single(headers, 'content-digest'), hasBody, signature);
    checkDeclaredLength(original, this.settings.maxBodyBytes);
    const base = buildSignatureBase(receivedRequest(request, headers), signature);

    // A rate-limited route reads whether the nonce was used before its limit is taken, so that a
    // replay spends none of the account's allowance; any other route may start from the cache.
    const cached = request.route.rateLimit === null ? this.accounts.get(accessId) : undefined;
    let found: CachedAccount & { nonceUsed?: boolean } = cached ?? (await this.fromStore(accessId, nonce));
    let key = signedBy(found.account, base, signature.signature);
    if (key === undefined) {
      // The copy may predate a key the client now signs with; a record unchanged since is not tried twice.
      const fresh = cached ? await this.fromStore(accessId, nonce) : undefined;
      key = fresh && fresh.version !== cached?.version ? signedBy(fresh.account, base, signature.signature) : undefined;
      if (key === undefined) {
        // The base holds only what the client sent (and the Access ID it named), so the client can diff
        // it against the one it signed; it is shown only once the Access ID is known to be an account's.
        // The registered keys' fingerprints (public) turn "my base equals yours" into "wrong key file".
        const registered = serviceAccountKeys((fresh ?? found).account).map((key) => key.fingerprint);
        throw new GatewayError(
          'signature_invalid',
          `The signature does not verify with this service account's public key (${registered.join(' or ')}) over the signature base the gateway computed (signature_base); compare it with the one you signed, and the fingerprint with your key's.`,
          { details: { signature_base: base, registered_keys: registered.join(' ') } },
        );
      }
      found = fresh!;
    }
    // Decided from the record (no other store call), and only once the signature verified, so it
    // tells no more about the Access ID than unknown_access_id does; it throws before admission, so an
    // expired account never consumes a nonce.
    if (isExpired(found.account.expiresAt, Date.now())) throw new GatewayError('credential_expired');
    // Known only from a read; from the cache, consuming the nonce tells.
    if (found.nonceUsed) throw new GatewayError('nonce_replayed');

    if (found !== cached) this.accounts.set(accessId, { account: found.account, version: found.version });
    const signed = { accessId, nonce, created: signature.params.created!, claimedDigests, version: found.version };
    return { principal: { kind: 'service-account', account: found.account, fingerprint: key.fingerprint }, signed };
  }

  private async fromStore(accessId: string, nonce: string): Promise<CachedAccount & { nonceUsed: boolean }> {
    const state = await this.store.serviceAccountForRequest(accessId, nonce);
    if (!state.account) {
      this.accounts.delete(accessId);
      throw new GatewayError('unknown_access_id');
    }
    return state;
  }
}

/** The key that made the signature: one, or two while the account rotates keys (at most two verifications). */
function signedBy(account: ServiceAccountRecord, base: string, signature: Uint8Array): ServiceAccountKey | undefined {
  return serviceAccountKeys(account).find((key) => verifyEd25519(base, signature, Buffer.from(key.publicKeyBytes, 'base64url')));
}

/** An expiry (ISO 8601) at or before now; null or absent: never. */
function isExpired(expiresAt: string | null | undefined, now: number): boolean {
  return expiresAt !== undefined && expiresAt !== null && Date.parse(expiresAt) <= now;
}
