// POST /v1/oauth/token: the client credentials grant, as a list of small named steps.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { GatewayError } from '../errors.js';
import { DOCUMENTATION_ONLY } from '../http/documentation-only.js';
import type { GatewayMetrics } from '../metrics/metrics.js';
import type { Address } from '../net/cidr.js';
import type { Vocabulary } from '../policy/vocabulary.js';
import type { ClientRecord } from '../store/types.js';
import type { UsageRecorder } from '../store/usage-recorder.js';
import type { AccessTokens } from './access-tokens.js';
import { clientCredentialsOf, formFields, type ClientAuthenticator, type FormFields } from './client-authentication.js';
import type { DpopProofs } from './dpop.js';
import { CLIENT_SECURITY, FORM, TOKEN_RESPONSES, TokenFormSchema } from './endpoint-schemas.js';

export interface OAuthDependencies {
  clients: ClientAuthenticator;
  tokens: AccessTokens;
  metrics: GatewayMetrics;
  /** The client address the throttle counts failures against (by its network); undefined when the socket reports none. */
  addressOf: (request: FastifyRequest) => Address | undefined;
  /** The policy's, in force now: a token carries only scopes it declares (a reload may have removed some a client holds). */
  vocabulary: () => Vocabulary;
  dpop: DpopProofs;
  /** Every token DPoP-bound, whatever the client (the fapi2 profile). */
  dpopRequired: boolean;
  /** The token endpoint's URL as the metadata publishes it: what a DPoP proof's htu must be. */
  tokenEndpointUrl: string;
  /** Records that a client got a token (its "last used"). */
  usage: Pick<UsageRecorder, 'recordClient'>;
}

function checkGrantType(fields: FormFields): void {
  // Clients of the gateway's first API omit grant_type (client_credentials is the only grant); when present it must be client_credentials.
  if (fields.grant_type !== undefined && fields.grant_type !== 'client_credentials') {
    throw new GatewayError('unsupported_grant_type', `The grant type ${JSON.stringify(fields.grant_type)} is not supported; use client_credentials.`);
  }
}

/** The requested scopes, or without `scope` all the client holds; either way only those the policy in force declares. */
function grantedScopes(fields: FormFields, client: ClientRecord, vocabulary: Vocabulary): string[] {
  if (fields.scope === undefined) {
    const declared = client.scopes.filter((s) => vocabulary.scopes.has(s));
    if (declared.length === 0)
      throw new GatewayError('invalid_scope', `None of this client's scopes (${client.scopes.join(' ')}) is declared by the policy in force.`);
    return declared;
  }
  const requested = [...new Set(fields.scope.split(' ').filter(Boolean))];
  if (requested.length === 0) throw new GatewayError('invalid_scope', 'scope is empty.');
  const refused = requested.filter((s) => !vocabulary.scopes.has(s) || !client.scopes.includes(s));
  if (refused.length > 0) throw new GatewayError('invalid_scope', `The scope ${refused.join(' ')} is not allowed for this client.`);
  return requested;
}

export function registerTokenEndpoint(app: FastifyInstance, deps: OAuthDependencies): void {
  const schema = {
    summary: 'Issue an access token (client credentials grant).',
    tags: ['OAuth'],
    security: CLIENT_SECURITY,
    consumes: FORM,
    body: TokenFormSchema,
    response: TOKEN_RESPONSES,
  };
  app.post('/v1/oauth/token', { config: { errorStyle: 'oauth' }, schema, ...DOCUMENTATION_ONLY }, async (request, reply) => {
    reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    const fields = formFields(request);
    const credentials = clientCredentialsOf(request, fields);
    checkGrantType(fields);
    const proof = deps.dpop.proofOf(request.headers, true);
    const client = await deps.clients.authenticate(credentials, deps.addressOf(request), request.log);
    // The proof's key and signature checks cost more than a secret's: only for an authenticated client.
    const checkedProof =
      proof === undefined ? undefined : deps.dpop.check(proof, { method: request.raw.method ?? request.method, url: deps.tokenEndpointUrl }, undefined, true);
    if (checkedProof === undefined && (client.dpopBoundAccessTokens || deps.dpopRequired)) {
      const why = client.dpopBoundAccessTokens
        ? 'this client must send one with each token request (dpop_bound_access_tokens)'
        : 'every token is DPoP-bound here (FAPI 2.0)';
      throw deps.dpop.refusal(`a DPoP proof is required: ${why}`, true);
    }
    const scopes = grantedScopes(fields, client, deps.vocabulary());
    if (checkedProof !== undefined) await deps.dpop.consume(client.clientId, checkedProof, true);
    const { token } = await deps.tokens.issue(client, scopes, checkedProof?.jkt);
    deps.metrics.tokensIssued.inc();
    deps.usage.recordClient(client.clientId);
    const tokenType = checkedProof === undefined ? 'Bearer' : 'DPoP';
    // The nonce the client's next proofs (to the routes too) are to carry.
    const nonce = checkedProof === undefined ? undefined : deps.dpop.freshNonce();
    if (nonce !== undefined) reply.header('dpop-nonce', nonce);
    return { access_token: token, token_type: tokenType, expires_in: deps.tokens.lifetimeSeconds, scope: scopes.join(' ') };
  });
}
