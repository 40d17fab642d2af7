// RFC 7009 revocation and RFC 7662 introspection, both with client authentication. Introspection
// tells the state and claims of any client's token, so only resource servers may use it (RFC 7662 2.1).
import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../errors.js';
import { DOCUMENTATION_ONLY } from '../http/documentation-only.js';
import type { CredentialStore } from '../store/types.js';
import { TokenVerificationError, type VerifiedToken } from './access-tokens.js';
import { clientCredentialsOf, formFields } from './client-authentication.js';
import { CLIENT_SECURITY, FORM, INTROSPECT_RESPONSES, IntrospectFormSchema, REVOKE_RESPONSES, RevokeFormSchema } from './endpoint-schemas.js';
import type { OAuthDependencies } from './token-endpoint.js';

async function verifiedOrNull(deps: OAuthDependencies, token: string): Promise<VerifiedToken | null> {
  try {
    return await deps.tokens.verify(token);
  } catch (error) {
    if (error instanceof TokenVerificationError) return null;
    throw error;
  }
}

function tokenField(fields: Record<string, string>): string {
  if (!fields.token) throw new GatewayError('invalid_request', 'token is required.');
  return fields.token;
}

export function registerTokenManagement(app: FastifyInstance, deps: OAuthDependencies & { store: CredentialStore }): void {
  const revokeSchema = {
    summary: 'Revoke an access token (RFC 7009). Client authentication as for the token endpoint.',
    tags: ['OAuth'],
    security: CLIENT_SECURITY,
    consumes: FORM,
    body: RevokeFormSchema,
    response: REVOKE_RESPONSES,
  };
  app.post('/v1/oauth/revoke', { config: { errorStyle: 'oauth' }, schema: revokeSchema, ...DOCUMENTATION_ONLY }, async (request, reply) => {
    reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    const fields = formFields(request);
    const client = await deps.clients.authenticate(clientCredentialsOf(request, fields), deps.addressOf(request), request.log);
    const claims = (await verifiedOrNull(deps, tokenField(fields)))?.claims;
    // RFC 7009 2.2: an invalid or unknown token is not an error. A client may revoke only its own tokens.
    if (claims) {
      if (claims.client_id !== client.clientId) throw new GatewayError('invalid_request', 'The token was not issued to this client.');
      await deps.store.revokeToken(client.clientId, claims.jti, claims.exp);
    }
    return reply.code(200).send({});
  });

  const introspectSchema = {
    summary: 'Introspect an access token (RFC 7662). Client authentication as for the token endpoint; only clients with resource_server may call it.',
    tags: ['OAuth'],
    security: CLIENT_SECURITY,
    consumes: FORM,
    body: IntrospectFormSchema,
    response: INTROSPECT_RESPONSES,
  };
  app.post('/v1/oauth/introspect', { config: { errorStyle: 'oauth' }, schema: introspectSchema, ...DOCUMENTATION_ONLY }, async (request, reply) => {
    reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    const fields = formFields(request);
    const caller = await deps.clients.authenticate(clientCredentialsOf(request, fields), deps.addressOf(request), request.log);
    // Refused before the token is even read: a client that may not ask learns nothing about it.
    if (caller.resourceServer !== true) throw new GatewayError('introspection_not_allowed');
    const verified = await verifiedOrNull(deps, tokenField(fields));
    if (!verified) return { active: false };
    const { claims } = verified;
    const state = await deps.store.bearerState(claims.client_id, claims.jti, verified.kid);
    if (!state.client || state.revoked || deps.tokens.isRetired(verified.kid, state.signingKeyRetired)) return { active: false };
    return {
      active: true,
      scope: claims.scope,
      client_id: claims.client_id,
      token_type: claims.cnf ? 'DPoP' : 'Bearer',
      exp: claims.exp,
      iat: claims.iat,
      sub: claims.sub,
      aud: claims.aud,
      iss: claims.iss,
      jti: claims.jti,
      ...(claims.account_id ? { account_id: claims.account_id } : {}),
      ...(claims.cnf ? { cnf: { jkt: claims.cnf.jkt } } : {}),
    };
  });
}
