// The public listener's OAuth contracts: token, revocation, introspection, key set and
// metadata, for the OpenAPI document. They document only (gateway/http/documentation-only.ts):
// each endpoint checks its form itself, in the order RFC 6749 ranks the errors.
import { Type } from 'typebox';

export const OAUTH_ERROR_ID = 'OAuthError';

export const OAuthErrorSchema = Type.Object(
  {
    error: Type.Enum([
      'auth_error',
      'invalid_client',
      'invalid_request',
      'unsupported_grant_type',
      'invalid_scope',
      'too_many_requests',
      'introspection_not_allowed',
      'body_too_large',
      'store_unavailable',
      'server_busy',
      'internal_error',
    ]),
    message: Type.String(),
    error_description: Type.String({ description: 'The same text as message, for standard OAuth clients.' }),
    request_id: Type.String(),
  },
  { $id: OAUTH_ERROR_ID },
);

const oauthError = (description: string) => Type.Unsafe({ $ref: `${OAUTH_ERROR_ID}#`, description });

const CLIENT_AUTH_401 =
  'auth_error: the client is invalid (a wrong secret, or a client assertion that does not verify or was used before); invalid_client instead with GATEWAY_OAUTH_ERROR_STYLE=rfc6749. WWW-Authenticate: Basic when the client used Basic.';

/** Client authentication: in the form (client_id, client_secret, or a client assertion), or HTTP Basic (RFC 6749 2.3.1). */
export const CLIENT_SECURITY: ReadonlyArray<Record<string, readonly string[]>> = [{}, { clientBasic: [] }];
export const FORM = ['application/x-www-form-urlencoded'];

const clientCredentials = {
  client_id: Type.Optional(Type.String({ format: 'uuid', description: 'Omit when using HTTP Basic; optional with a client assertion.' })),
  client_secret: Type.Optional(Type.String({ description: 'Omit when using HTTP Basic or a client assertion.' })),
  client_assertion_type: Type.Optional(
    Type.Literal('urn:ietf:params:oauth:client-assertion-type:jwt-bearer', { description: 'private_key_jwt clients (RFC 7523 2.2).' }),
  ),
  client_assertion: Type.Optional(
    Type.String({
      maxLength: 4096,
      description:
        'private_key_jwt: a JWT signed with a key of the client (iss = sub = client_id, aud the issuer or this endpoint, exp at most 5 minutes ahead, a single-use jti).',
    }),
  ),
};

export const TokenFormSchema = Type.Object({
  ...clientCredentials,
  grant_type: Type.Optional(Type.Literal('client_credentials', { description: 'Optional.' })),
  scope: Type.Optional(
    Type.String({ description: 'Optional: a space-separated subset of the client scopes; without it, every scope the client holds that the policy declares.' }),
  ),
});

export const TOKEN_RESPONSES = {
  200: Type.Object(
    {
      access_token: Type.String({ description: 'RFC 9068 JWT (typ at+jwt).' }),
      token_type: Type.Union([Type.Literal('Bearer'), Type.Literal('DPoP')], {
        description: 'DPoP when the request carried a DPoP proof: the token is bound to its key (cnf.jkt) and is sent as Authorization: DPoP with a proof.',
      }),
      expires_in: Type.Integer({ description: 'Seconds.', examples: [86400] }),
      scope: Type.String({ examples: ['sales products'] }),
    },
    { description: 'Token issued. Cache-Control: no-store.' },
  ),
  400: oauthError('invalid_request, unsupported_grant_type, invalid_scope, invalid_dpop_proof or use_dpop_nonce (with DPoP-Nonce).'),
  401: oauthError(CLIENT_AUTH_401),
  429: oauthError('too_many_requests: repeated failures; see Retry-After.'),
};

export const RevokeFormSchema = Type.Object({
  ...clientCredentials,
  token: Type.String(),
  token_type_hint: Type.Optional(Type.String()),
});

export const REVOKE_RESPONSES = {
  200: Type.Object({}, { description: 'Revoked (or the token was already invalid).' }),
  400: oauthError('invalid_request: e.g. no token, or a token issued to another client.'),
  401: oauthError(CLIENT_AUTH_401),
};

export const IntrospectFormSchema = Type.Object({ ...clientCredentials, token: Type.String() });

export const INTROSPECT_RESPONSES = {
  200: Type.Object(
    {
      active: Type.Boolean(),
      scope: Type.Optional(Type.String()),
      client_id: Type.Optional(Type.String()),
      token_type: Type.Optional(Type.Union([Type.Literal('Bearer'), Type.Literal('DPoP')])),
      exp: Type.Optional(Type.Integer()),
      iat: Type.Optional(Type.Integer()),
      sub: Type.Optional(Type.String()),
      aud: Type.Optional(Type.String()),
      iss: Type.Optional(Type.String()),
      jti: Type.Optional(Type.String()),
      account_id: Type.Optional(Type.String()),
      cnf: Type.Optional(Type.Object({ jkt: Type.String() }, { description: 'RFC 9449 6.2: the key a DPoP-bound token is bound to.' })),
    },
    { description: '{"active": true, ...claims} or {"active": false}.' },
  ),
  400: oauthError('invalid_request: e.g. no token.'),
  401: oauthError(CLIENT_AUTH_401),
  403: oauthError('introspection_not_allowed: the client is not a resource server.'),
};

export const JWKS_RESPONSES = {
  200: Type.Object(
    {
      keys: Type.Array(
        Type.Object({ kty: Type.String(), kid: Type.String(), alg: Type.String(), use: Type.Optional(Type.String()) }, { additionalProperties: true }),
      ),
    },
    { description: 'JWKS: the active key, then each rotated-out key until the tokens it signed have expired.' },
  ),
};

export const METADATA_RESPONSES = {
  200: Type.Object(
    {
      issuer: Type.String(),
      token_endpoint: Type.String(),
      jwks_uri: Type.String(),
      revocation_endpoint: Type.String(),
      introspection_endpoint: Type.String(),
      grant_types_supported: Type.Array(Type.Literal('client_credentials')),
      response_types_supported: Type.Array(Type.String()),
      token_endpoint_auth_methods_supported: Type.Array(Type.String()),
      token_endpoint_auth_signing_alg_values_supported: Type.Array(Type.String(), {
        description: 'What a private_key_jwt client assertion may be signed with (client_assertion_algorithms).',
      }),
      dpop_signing_alg_values_supported: Type.Array(Type.String(), { description: 'What a DPoP proof may be signed with (dpop_algorithms, RFC 9449 5.1).' }),
      revocation_endpoint_auth_methods_supported: Type.Array(Type.String()),
      introspection_endpoint_auth_methods_supported: Type.Array(Type.String()),
      scopes_supported: Type.Array(Type.String(), { description: 'The scopes the policy declares.' }),
      access_token_signing_alg_values_supported: Type.Array(Type.String()),
    },
    { description: 'RFC 8414 authorization server metadata.' },
  ),
};
