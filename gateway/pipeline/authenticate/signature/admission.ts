// Stage 5 of a signed request, run once it is authorized and within its limit: the one store write,
// then the body. The nonce is consumed only while the stored account is still the version stage 2
// verified the signature with; the body is then read, bounded by the per-request limit and the
// gateway-wide body budget, and checked against the signed digest.
import type { Settings } from '../../../config/settings.js';
import { GatewayError } from '../../../errors.js';
import { BodyHold, type BodyBudget } from '../../../http/body-budget.js';
import type { ClaimedDigests } from '../../../signing/content-digest.js';
import { nonceTtlSeconds } from '../../../signing/signature-window.js';
import type { CredentialStore } from '../../../store/types.js';
import type { BodySource } from '../../body-source.js';
import type { IdentifiedRequest } from '../../identify.js';
import { CredentialChangedError } from '../authenticator.js';
import type { AccountCache } from './account-cache.js';
import { readRequestBody } from './request-body.js';
import { checkBodyDigest } from './signature-policy.js';

/** What stage 2 verified and admission still needs. */
export interface VerifiedSignedRequest {
  readonly accessId: string;
  readonly nonce: string;
  /** The signature's created (epoch seconds): a store that may have lost nonces in a failover refuses older ones. */
  readonly created: number;
  readonly claimedDigests: ClaimedDigests | undefined;
  /** The version of the account record it was verified with; the nonce is consumed only while the store holds that one. */
  readonly version: string;
}

export interface SignedAdmissionDependencies {
  readonly store: CredentialStore;
  readonly settings: Pick<Settings, 'signatureWindowSeconds' | 'maxBodyBytes'>;
  readonly bodyBudget: BodyBudget;
  /** The accounts stage 2 verified with: one the store no longer holds as verified leaves it. */
  readonly accounts: AccountCache;
}

/** Consumes the nonce and reads and checks the body; resolves to the verified bytes (undefined: no body to forward). */
export async function admitSigned(
  deps: SignedAdmissionDependencies,
  request: IdentifiedRequest,
  signed: VerifiedSignedRequest,
  source: BodySource,
): Promise<Buffer | undefined> {
  const consumed = await deps.store.consumeNonce(
    signed.accessId,
    signed.nonce,
    nonceTtlSeconds(deps.settings.signatureWindowSeconds),
    signed.version,
    signed.created,
  );
  if (consumed === 'account_changed' || consumed === 'account_gone') deps.accounts.delete(signed.accessId);
  // Authenticated and authorized with a record that is no longer the stored one: checked again.
  if (consumed === 'account_changed') throw new CredentialChangedError();
  // Two requests with one nonce can both pass the checks; only one consumes it.
  if (consumed === 'used') throw new GatewayError('nonce_replayed');
  if (consumed === 'account_gone') throw new GatewayError('unknown_access_id');

  return admitSignedBody(request, signed.claimedDigests, source, deps.settings.maxBodyBytes, deps.bodyBudget);
}

/**
 * The body of a signed request (either kind), read within the per-request limit and the body
 * budget and checked against the signed Content-Digest; resolves to the bytes to forward.
 */
export async function admitSignedBody(
  request: IdentifiedRequest,
  claimed: ClaimedDigests | undefined,
  source: BodySource,
  maxBodyBytes: number,
  bodyBudget: BodyBudget,
): Promise<Buffer | undefined> {
  // An edge proxy that keeps the body (nginx auth_request) reaches here only on a route whose
  // policy delegates the digest check upstream (gateway/pipeline/withheld-body.ts); the signature
  // covered the Content-Digest the upstream checks the body against.
  if (request.original.body === 'withheld') return undefined;
  const hold = new BodyHold(bodyBudget);
  source.onFinished(() => hold.releaseAll());
  const body = await readRequestBody(source, request.original, maxBodyBytes, hold);
  checkBodyDigest(claimed, body ?? Buffer.alloc(0));
  return body;
}
