// The signature of a client assertion, checked against the client's registered keys (jws-signature.ts).
import type { ClientKey } from '../store/types.js';
import type { ParsedAssertion } from './client-assertion.js';
import { jwsVerifies } from './jws-signature.js';

/**
 * Whether a key of the client verifies the assertion: the one its kid names, or without a kid each
 * key (at most two) whose type fits the alg.
 */
export function assertionSignedByClient(assertion: ParsedAssertion, keys: readonly ClientKey[]): boolean {
  const candidates = assertion.kid === undefined ? keys : keys.filter((key) => key.kid === assertion.kid);
  return candidates.some((key) => jwsVerifies(assertion.alg, assertion.signingInput, assertion.signature, key.jwk));
}
