// Stage 5: the work no unauthorized request may cause, done once the request is authenticated,
// authorized and within its limit. A scheme that has such work leaves it with its authentication
// (signed routes: consume the nonce, then read the body and check its digest,
// authenticate/signature/admission.ts); a Bearer request has none. When it finds the credential
// changed since stage 2 used this instance's copy, it throws CredentialChangedError having written
// nothing, and the pipeline checks the request once more from the store.
import type { Authentication } from './authenticate/authenticator.js';
import type { BodySource } from './body-source.js';

/** Resolves to the verified body bytes to forward (undefined: the body, if any, streams through). */
export async function admit(authentication: Authentication, body: BodySource): Promise<Buffer | undefined> {
  return authentication.admission?.admit(body);
}
