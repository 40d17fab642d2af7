// Public key set and RFC 8414 authorization server metadata.
import type { FastifyInstance } from 'fastify';
import type { Settings } from '../config/settings.js';
import { DOCUMENTATION_ONLY } from '../http/documentation-only.js';
import type { Vocabulary } from '../policy/vocabulary.js';
import { headerAlgorithms } from './client-assertion.js';
import { JWKS_RESPONSES, METADATA_RESPONSES } from './endpoint-schemas.js';
import type { SigningKeys } from './signing-keys.js';

const AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'private_key_jwt'];

/** The token endpoint's URL as the metadata publishes it (and a DPoP proof's htu names). */
export function tokenEndpointUrl(issuer: string): string {
  return `${issuer}/v1/oauth/token`;
}

/** `vocabulary`: the policy's, in force now; scopes_supported lists its scopes. */
export function registerDiscovery(
  app: FastifyInstance,
  settings: Pick<Settings, 'issuer' | 'jwtAllowedAlgorithms' | 'clientAssertionAlgorithms' | 'dpopAlgorithms' | 'oauthProfile'>,
  keys: SigningKeys,
  vocabulary: () => Vocabulary,
): void {
  const jwksSchema = { summary: 'Public signing keys (JWKS).', tags: ['OAuth'], response: JWKS_RESPONSES };
  app.get('/.well-known/jwks.json', { schema: jwksSchema, ...DOCUMENTATION_ONLY }, async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=300');
    return keys.jwks();
  });

  // FAPI 2.0: only private_key_jwt is accepted, so only it is advertised.
  const methods = settings.oauthProfile === 'fapi2' ? ['private_key_jwt'] : AUTH_METHODS;
  const metadata = {
    issuer: settings.issuer,
    token_endpoint: tokenEndpointUrl(settings.issuer),
    jwks_uri: `${settings.issuer}/.well-known/jwks.json`,
    revocation_endpoint: `${settings.issuer}/v1/oauth/revoke`,
    introspection_endpoint: `${settings.issuer}/v1/oauth/introspect`,
    grant_types_supported: ['client_credentials'],
    response_types_supported: [],
    // The three endpoints authenticate clients alike (client-authentication.ts).
    token_endpoint_auth_methods_supported: methods,
    token_endpoint_auth_signing_alg_values_supported: headerAlgorithms(settings.clientAssertionAlgorithms),
    dpop_signing_alg_values_supported: headerAlgorithms(settings.dpopAlgorithms),
    revocation_endpoint_auth_methods_supported: methods,
    introspection_endpoint_auth_methods_supported: methods,
    access_token_signing_alg_values_supported: [...settings.jwtAllowedAlgorithms],
  };
  const metadataSchema = { summary: 'RFC 8414 authorization server metadata.', tags: ['OAuth'], response: METADATA_RESPONSES };
  // The scopes change with a policy reload: read at each request.
  app.get('/.well-known/oauth-authorization-server', { schema: metadataSchema, ...DOCUMENTATION_ONLY }, async () => ({
    ...metadata,
    scopes_supported: [...vocabulary().scopes.keys()],
  }));
}
