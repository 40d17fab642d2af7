// DPoP (RFC 9449) as the token endpoint and the bearer stage use it: the one DPoP header of a
// request, its proof checked against the configured algorithms and age (dpop-proof.ts), the jti's
// single use on every instance, and the WWW-Authenticate challenge of a refusal (section 7.1).
import type { IncomingHttpHeaders } from 'node:http';
import type { Settings } from '../config/settings.js';
import { GatewayError } from '../errors.js';
import type { CredentialStore } from '../store/types.js';
import { headerAlgorithms } from './client-assertion.js';
import type { DpopNonces } from './dpop-nonces.js';
import { checkDpopProof, DPOP_CLOCK_SKEW_SECONDS, DpopProofRefused, type CheckedDpopProof } from './dpop-proof.js';

/** The request a proof must be for. */
export interface DpopTarget {
  method: string;
  url: string;
}

export class DpopProofs {
  /** The accepted header alg labels, also what the metadata and the challenge list. */
  readonly algorithms: readonly string[];

  constructor(
    private readonly settings: Pick<Settings, 'dpopAlgorithms' | 'dpopProofMaxAgeSeconds'>,
    private readonly store: Pick<CredentialStore, 'consumeTokenId'>,
    /** Server-provided nonces (GATEWAY_DPOP_NONCE_SECONDS); undefined: off. */
    private readonly nonces: DpopNonces | undefined,
    private readonly nowSeconds: () => number = () => Math.floor(Date.now() / 1000),
  ) {
    this.algorithms = headerAlgorithms(settings.dpopAlgorithms);
  }

  /** WWW-Authenticate for a protected route's refusal (RFC 9449 7.1). */
  challenge(error?: 'invalid_dpop_proof' | 'invalid_token' | 'use_dpop_nonce', description?: string): string {
    const parts = [`DPoP algs="${this.algorithms.join(' ')}"`];
    if (error) parts.push(`error="${error}"`);
    // A quoted-string (RFC 9110 5.6.4): the description's own quotes become apostrophes.
    if (description) parts.push(`error_description="${description.replace(/["\\]/g, "'")}"`);
    return parts.join(', ');
  }

  /** The request's DPoP proof, undefined when it has none; more than one is refused (RFC 9449 4.3 check 1). */
  proofOf(headers: IncomingHttpHeaders, atTokenEndpoint: boolean): string | undefined {
    const value = headers.dpop;
    if (value === undefined) return undefined;
    if (Array.isArray(value) || value.includes(',')) throw this.refusal('the request has more than one DPoP header', atTokenEndpoint);
    return value;
  }

  /** The nonce a successful token response hands out (DPoP-Nonce), when nonces are on. */
  freshNonce(): string | undefined {
    return this.nonces?.current();
  }

  /**
   * The proof checked against the request (and the access token it came with); a refusal is
   * invalid_dpop_proof, or use_dpop_nonce with a fresh nonce when nonces are on and it lacks a current one.
   */
  check(proof: string, target: DpopTarget, accessToken: string | undefined, atTokenEndpoint: boolean): CheckedDpopProof {
    const checked = this.checkProof(proof, target, accessToken, atTokenEndpoint);
    if (this.nonces !== undefined && !this.nonces.accepts(checked.nonce)) {
      const description = checked.nonce === undefined ? 'the proof must carry the nonce in DPoP-Nonce' : "the proof's nonce is not current";
      const headers: Record<string, string> = { 'dpop-nonce': this.nonces.current() };
      if (!atTokenEndpoint) headers['www-authenticate'] = this.challenge('use_dpop_nonce', description);
      throw new GatewayError('use_dpop_nonce', `The DPoP proof needs a current server nonce: ${description}; make it again with the nonce in DPoP-Nonce.`, {
        headers,
        atTokenEndpoint,
      });
    }
    return checked;
  }

  private checkProof(proof: string, target: DpopTarget, accessToken: string | undefined, atTokenEndpoint: boolean): CheckedDpopProof {
    try {
      return checkDpopProof(proof, {
        algorithms: this.algorithms,
        method: target.method,
        url: target.url,
        accessToken,
        nowSeconds: this.nowSeconds(),
        maxAgeSeconds: this.settings.dpopProofMaxAgeSeconds,
      });
    } catch (error) {
      if (error instanceof DpopProofRefused) throw this.refusal(error.message, atTokenEndpoint);
      throw error;
    }
  }

  /**
   * Records the proof's jti as used, for as long as the proof could be accepted: the one store
   * write, made only once the request is otherwise allowed. A proof seen before is refused.
   */
  async consume(clientId: string, proof: CheckedDpopProof, atTokenEndpoint: boolean): Promise<void> {
    const until = proof.iat + this.settings.dpopProofMaxAgeSeconds + DPOP_CLOCK_SKEW_SECONDS;
    if (!(await this.store.consumeTokenId(clientId, 'dpop_proof', proof.jti, until))) {
      throw this.refusal('the proof was used before: make a new one for each request', atTokenEndpoint);
    }
  }

  refusal(description: string, atTokenEndpoint: boolean): GatewayError {
    const message = `The DPoP proof is not valid: ${description}.`;
    if (atTokenEndpoint) return new GatewayError('invalid_dpop_proof', message, { atTokenEndpoint });
    return new GatewayError('invalid_dpop_proof', message, { headers: { 'www-authenticate': this.challenge('invalid_dpop_proof', description) } });
  }
}
