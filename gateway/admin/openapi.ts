// OpenAPI 3.1 description of the token endpoint and the admin API, served at /admin/openapi.json.
import type { Settings } from '../config/settings.js';
import { ERRORS } from '../errors.js';
import { PERMISSION_NAMES, SCOPES } from '../policy/vocabulary.js';
import { ACCOUNT_ID_PATTERN } from './validate.js';

const json = (schema: object) => ({ 'application/json': { schema } });
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const errorResponse = (description: string) => ({ description, content: json(ref('Error')) });
const oauthErrorResponse = (description: string) => ({ description, content: json(ref('OAuthError')) });

const ADMIN_ERRORS = {
  '400': errorResponse('Invalid input; `field` names the field and `message` what is wrong.'),
  '401': errorResponse('Missing or wrong admin token (admin_unauthorized).'),
  '503': errorResponse('The credential store is unreachable (store_unavailable).'),
};

const CLIENT_AUTH_401 = 'auth_error: the client is invalid; invalid_client instead with GATEWAY_OAUTH_ERROR_STYLE=rfc6749. WWW-Authenticate: Basic when the client used Basic.';

const clientCredentialsForm = {
  'application/x-www-form-urlencoded': {
    schema: {
      type: 'object',
      properties: {
        client_id: { type: 'string', format: 'uuid', description: 'Omit when using HTTP Basic.' },
        client_secret: { type: 'string', description: 'Omit when using HTTP Basic.' },
      },
    },
  },
};

export function openApiDocument(settings: Pick<Settings, 'issuer'>) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Access gateway: token endpoint and admin API',
      version: '1',
      description: 'OAuth 2.0 client credentials for the public API; service accounts (Ed25519-signed requests) for the banking API.',
    },
    servers: [
      { url: settings.issuer, description: 'public listener (token endpoint, proxied routes)' },
      { url: 'http://127.0.0.1:8081', description: 'admin listener (/admin/v1/*), private' },
    ],
    components: {
      securitySchemes: {
        adminToken: { type: 'http', scheme: 'bearer', description: 'GATEWAY_ADMIN_TOKEN (admin listener only).' },
        clientBasic: { type: 'http', scheme: 'basic', description: 'client_id:client_secret (RFC 6749 2.3.1).' },
      },
      schemas: {
        Error: {
          type: 'object',
          required: ['error', 'message', 'request_id'],
          properties: {
            error: { type: 'string', enum: Object.keys(ERRORS) },
            message: { type: 'string' },
            request_id: { type: 'string' },
            field: { type: 'string', description: 'For validation errors: the field at fault.' },
          },
        },
        OAuthError: {
          type: 'object',
          required: ['error', 'message', 'error_description', 'request_id'],
          properties: {
            error: { type: 'string', enum: ['auth_error', 'invalid_client', 'invalid_request', 'unsupported_grant_type', 'invalid_scope', 'too_many_requests', 'introspection_not_allowed', 'body_too_large', 'store_unavailable', 'server_busy', 'internal_error'] },
            message: { type: 'string' },
            error_description: { type: 'string' },
            request_id: { type: 'string' },
          },
        },
        Ed25519Jwk: {
          type: 'object',
          required: ['kty', 'crv', 'x'],
          description: 'A public Ed25519 JWK (RFC 8037). A JWK with "d" is a private key and is refused.',
          properties: {
            kty: { const: 'OKP' },
            crv: { const: 'Ed25519' },
            x: { type: 'string', description: 'The 32 key bytes, unpadded base64url.' },
            alg: { enum: ['EdDSA', 'Ed25519'] },
            use: { const: 'sig' },
          },
        },
        TokenResponse: {
          type: 'object',
          required: ['access_token', 'token_type', 'expires_in', 'scope'],
          properties: {
            access_token: { type: 'string', description: 'RFC 9068 JWT (typ at+jwt).' },
            token_type: { const: 'Bearer' },
            expires_in: { type: 'integer', description: 'Seconds.', example: 86400 },
            scope: { type: 'string', example: 'sales products' },
          },
        },
        ClientInput: {
          type: 'object',
          required: ['name', 'scopes'],
          additionalProperties: false,
          properties: {
            name: { type: 'string', maxLength: 200 },
            scopes: { type: 'array', minItems: 1, items: { enum: [...SCOPES] } },
            account_id: { type: 'string', maxLength: 200, pattern: ACCOUNT_ID_PATTERN, description: 'Sent upstream as x-gateway-account-id: visible ASCII and inner spaces.' },
            resource_server: { type: 'boolean', default: false, description: 'May introspect tokens at /v1/oauth/introspect (RFC 7662 2.1).' },
          },
        },
        Client: {
          type: 'object',
          properties: {
            client_id: { type: 'string', format: 'uuid' },
            name: { type: 'string' },
            scopes: { type: 'array', items: { enum: [...SCOPES] } },
            account_id: { type: ['string', 'null'] },
            resource_server: { type: 'boolean', description: 'May introspect tokens.' },
            created_at: { type: 'string', format: 'date-time' },
          },
        },
        ServiceAccountInput: {
          type: 'object',
          required: ['description', 'public_key', 'permissions'],
          additionalProperties: false,
          properties: {
            description: { type: 'string', maxLength: 200 },
            public_key: {
              description:
                'The Ed25519 public key in any of three forms: an "ssh-ed25519 AAAA... [comment]" line, a PEM "-----BEGIN PUBLIC KEY-----" block (SubjectPublicKeyInfo), or a JWK (an object, or its JSON text). It is stored as the ssh-ed25519 line. A private key (PEM PRIVATE KEY, OPENSSH PRIVATE KEY, a JWK with "d") is refused with 400.',
              oneOf: [{ type: 'string' }, ref('Ed25519Jwk')],
              examples: ['ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAICa0C4+T//PYlxEvfrxYKyMtvXJRfQgv6Dz7MN3OQ9G7 payroll', '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAJrQLj5P/89iXES9+vFgrIy29clF9CC/oPPsw3c5D0bs=\n-----END PUBLIC KEY-----', { kty: 'OKP', crv: 'Ed25519', x: 'JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs' }],
            },
            permissions: { type: 'array', minItems: 1, items: { enum: PERMISSION_NAMES } },
            allowed_ips: { type: 'array', items: { type: 'string' }, description: 'IPv4/IPv6 addresses or CIDR ranges. Default: 0.0.0.0/0 and ::/0.' },
            account_id: { type: 'string', maxLength: 200, pattern: ACCOUNT_ID_PATTERN, description: 'Sent upstream as x-gateway-account-id: visible ASCII and inner spaces.' },
            expires_at: {
              type: ['string', 'null'],
              format: 'date-time',
              description: 'When the credential stops working: an RFC 3339 UTC timestamp (Z or +00:00) in the future. After it, a signed request with the Access ID gets 401 credential_expired. Omit (or null) for no expiry.',
              example: '2030-01-31T17:00:00Z',
            },
          },
        },
        ServiceAccountKeyInput: {
          type: 'object',
          required: ['public_key'],
          additionalProperties: false,
          properties: { public_key: { description: 'The new Ed25519 public key, in any form ServiceAccountInput.public_key accepts (a private key is refused with 400).', oneOf: [{ type: 'string' }, ref('Ed25519Jwk')] } },
        },
        ServiceAccountKey: {
          type: 'object',
          properties: {
            public_key: { type: 'string', description: 'The ssh-ed25519 line.' },
            fingerprint: { type: 'string', example: 'SHA256:...', description: 'As ssh-keygen -lf prints it; names the key in DELETE .../keys/{fingerprint}.' },
            added_at: { type: 'string', format: 'date-time' },
          },
        },
        ServiceAccount: {
          type: 'object',
          properties: {
            id: { type: 'string', description: 'Management identifier.' },
            access_id_hint: { type: 'string', description: 'The Access ID, partly hidden.' },
            description: { type: 'string' },
            public_key: { type: 'string', description: 'The ssh-ed25519 line, whatever form the key was given in.' },
            fingerprint: { type: 'string', example: 'SHA256:...', description: 'As ssh-keygen -lf prints it. With public_key: the first (oldest) key.' },
            public_keys: { type: 'array', minItems: 1, maxItems: 2, items: ref('ServiceAccountKey'), description: 'Every key, oldest first: one, or two while the account rotates keys (a signature by either verifies).' },
            expires_at: { type: ['string', 'null'], format: 'date-time', description: 'When the credential stops working (401 credential_expired after it); null: never.' },
            permissions: { type: 'array', items: { enum: PERMISSION_NAMES } },
            allowed_ips: { type: 'array', items: { type: 'string' } },
            account_id: { type: ['string', 'null'] },
            created_at: { type: 'string', format: 'date-time' },
            last_used_at: { type: ['string', 'null'], format: 'date-time' },
            last_used_ip: { type: ['string', 'null'] },
          },
        },
      },
    },
    paths: {
      '/v1/oauth/token': {
        post: {
          summary: 'Issue an access token (client credentials grant).',
          security: [{}, { clientBasic: [] }],
          requestBody: {
            required: true,
            content: {
              'application/x-www-form-urlencoded': {
                schema: {
                  type: 'object',
                  properties: {
                    ...clientCredentialsForm['application/x-www-form-urlencoded'].schema.properties,
                    grant_type: { const: 'client_credentials', description: 'Optional.' },
                    scope: { type: 'string', description: 'Optional: a space-separated subset of the client scopes.' },
                  },
                },
              },
            },
          },
          responses: {
            '200': { description: 'Token issued. Cache-Control: no-store.', content: json(ref('TokenResponse')) },
            '400': oauthErrorResponse('invalid_request, unsupported_grant_type or invalid_scope.'),
            '401': oauthErrorResponse(CLIENT_AUTH_401),
            '429': oauthErrorResponse('too_many_requests: repeated failures; see Retry-After.'),
          },
        },
      },
      '/v1/oauth/revoke': {
        post: {
          summary: 'Revoke an access token (RFC 7009). Client authentication as for the token endpoint.',
          requestBody: { content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', required: ['token'], properties: { token: { type: 'string' }, token_type_hint: { type: 'string' } } } } } },
          responses: { '200': { description: 'Revoked (or the token was already invalid).' }, '401': oauthErrorResponse(CLIENT_AUTH_401) },
        },
      },
      '/v1/oauth/introspect': {
        post: {
          summary: 'Introspect an access token (RFC 7662). Client authentication as for the token endpoint; only clients with resource_server may call it.',
          requestBody: { content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', required: ['token'], properties: { token: { type: 'string' } } } } } },
          responses: {
            '200': { description: '{"active": true, ...claims} or {"active": false}.' },
            '401': oauthErrorResponse(CLIENT_AUTH_401),
            '403': oauthErrorResponse('introspection_not_allowed: the client is not a resource server.'),
          },
        },
      },
      '/.well-known/jwks.json': { get: { summary: 'Public signing keys: the active one, then each rotated-out key until the tokens it signed have expired.', responses: { '200': { description: 'JWKS.' } } } },
      '/.well-known/oauth-authorization-server': { get: { summary: 'RFC 8414 metadata.', responses: { '200': { description: 'Metadata.' } } } },
      '/admin/v1/clients': {
        post: {
          summary: 'Create an OAuth client. The client_secret is in this response only.',
          security: [{ adminToken: [] }],
          requestBody: { required: true, content: json(ref('ClientInput')) },
          responses: { '201': { description: 'Created.', content: json({ allOf: [ref('Client'), { type: 'object', properties: { client_secret: { type: 'string' } } }] }) }, ...ADMIN_ERRORS },
        },
        get: { summary: 'List OAuth clients.', security: [{ adminToken: [] }], responses: { '200': { description: 'Clients.', content: json({ type: 'object', properties: { clients: { type: 'array', items: ref('Client') } } }) }, ...ADMIN_ERRORS } },
      },
      '/admin/v1/clients/{client_id}': {
        parameters: [{ name: 'client_id', in: 'path', required: true, schema: { type: 'string' } }],
        get: { summary: 'Show a client.', security: [{ adminToken: [] }], responses: { '200': { description: 'Client.', content: json(ref('Client')) }, '404': errorResponse('not_found.'), ...ADMIN_ERRORS } },
        delete: { summary: 'Delete a client; its tokens fail at once.', security: [{ adminToken: [] }], responses: { '204': { description: 'Deleted.' }, '404': errorResponse('not_found.'), ...ADMIN_ERRORS } },
      },
      '/admin/v1/clients/{client_id}/secret': {
        parameters: [{ name: 'client_id', in: 'path', required: true, schema: { type: 'string' } }],
        post: {
          summary:
            'Roll the client secret. The new client_secret is in this response only and works at once. The replaced secret keeps working for grace_seconds (0: refused at once), then only the new one does; rolling again during a grace period drops the older secret, so at most two secrets work at once. Tokens already issued stay valid. Audited as credential.rotated.',
          security: [{ adminToken: [] }],
          requestBody: {
            required: false,
            content: json({
              type: 'object',
              additionalProperties: false,
              properties: { grace_seconds: { type: 'integer', minimum: 0, maximum: 604800, default: 0, description: 'How long the replaced secret keeps working, in seconds (at most 7 days).' } },
            }),
          },
          responses: {
            '200': {
              description: 'Rolled. Cache-Control: no-store.',
              content: json({
                allOf: [
                  ref('Client'),
                  {
                    type: 'object',
                    required: ['client_secret', 'previous_secret_expires_at'],
                    properties: {
                      client_secret: { type: 'string', description: 'The new secret; shown only here.' },
                      previous_secret_expires_at: { type: ['string', 'null'], format: 'date-time', description: 'When the replaced secret stops working; null when grace_seconds was 0.' },
                    },
                  },
                ],
              }),
            },
            '404': errorResponse('not_found.'),
            ...ADMIN_ERRORS,
          },
        },
      },
      '/admin/v1/service-accounts': {
        post: {
          summary: 'Create a service account. The full access_id is in this response only.',
          security: [{ adminToken: [] }],
          requestBody: { required: true, content: json(ref('ServiceAccountInput')) },
          responses: { '201': { description: 'Created.', content: json({ allOf: [ref('ServiceAccount'), { type: 'object', properties: { access_id: { type: 'string', format: 'uuid' } } }] }) }, ...ADMIN_ERRORS },
        },
        get: { summary: 'List service accounts (Access ID partly hidden).', security: [{ adminToken: [] }], responses: { '200': { description: 'Service accounts.', content: json({ type: 'object', properties: { service_accounts: { type: 'array', items: ref('ServiceAccount') } } }) }, ...ADMIN_ERRORS } },
      },
      '/admin/v1/service-accounts/{id}': {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        get: { summary: 'Show a service account.', security: [{ adminToken: [] }], responses: { '200': { description: 'Service account.', content: json(ref('ServiceAccount')) }, '404': errorResponse('not_found.'), ...ADMIN_ERRORS } },
        delete: { summary: 'Delete a service account: every later request with its Access ID gets 401, on every instance.', security: [{ adminToken: [] }], responses: { '204': { description: 'Deleted.' }, '404': errorResponse('not_found.'), ...ADMIN_ERRORS } },
      },
      '/admin/v1/service-accounts/{id}/keys': {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        post: {
          summary: 'Add a second public key (key rotation). The Access ID is unchanged; while both keys are held, a signature by either verifies. An account holds at most two keys.',
          security: [{ adminToken: [] }],
          requestBody: { required: true, content: json(ref('ServiceAccountKeyInput')) },
          responses: {
            '201': { description: 'Added; the account with both keys.', content: json(ref('ServiceAccount')) },
            '404': errorResponse('not_found.'),
            '409': errorResponse('service_account_key_limit: the account already holds two keys; service_account_key_exists: it already holds this key.'),
            ...ADMIN_ERRORS,
          },
        },
      },
      '/admin/v1/service-accounts/{id}/keys/{fingerprint}': {
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'fingerprint', in: 'path', required: true, schema: { type: 'string' }, description: 'The key\'s SHA256:... fingerprint, URL-encoded (e.g. SHA256%3Aabc%2F...).' },
        ],
        delete: {
          summary: 'Remove one key; signatures by it fail at once (401 signature_invalid). The last key cannot be removed.',
          security: [{ adminToken: [] }],
          responses: {
            '200': { description: 'Removed; the account with its remaining key.', content: json(ref('ServiceAccount')) },
            '404': errorResponse('not_found: no such account, or it holds no key with that fingerprint.'),
            '409': errorResponse('service_account_last_key: the account\'s only key.'),
            ...ADMIN_ERRORS,
          },
        },
      },
      '/admin/v1/signing-keys/rotate': {
        post: {
          summary: 'Rotate the JWT signing key; every instance signs with the new key at once, and the old one verifies until its tokens have expired.',
          security: [{ adminToken: [] }],
          responses: { '200': { description: '{active_kid, previous_kid}.' }, ...ADMIN_ERRORS },
        },
      },
      '/admin/v1/policy': { get: { summary: 'The active policy routes.', security: [{ adminToken: [] }], responses: { '200': { description: 'Routes.' }, ...ADMIN_ERRORS } } },
    },
  };
}
