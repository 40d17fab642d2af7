// The admin API's OAuth client contracts: what a route accepts and answers. The
// secret hash is never part of an answer; the secret itself only of the creation and roll answers.
import { Type, type Static } from 'typebox';
import { AccountIdInputSchema, AccountIdSchema } from './account-id.js';
import { NextCursorSchema } from './paging.js';
import { messages, Nullable } from '../../http/schema-helpers.js';
import { VocabularyList, VocabularyListInput } from './vocabulary-list.js';
import { CLIENT_AUTH_METHODS } from '../../store/types.js';

/** A JWK Set as the admin API takes it; each key is checked by the route (gateway/oauth/client-jwks.ts). */
const JwksInputSchema = Type.Object(
  { keys: Type.Array(Type.Object({}, { additionalProperties: true }), { description: 'One public key, or two during a rotation.' }) },
  {
    additionalProperties: true,
    description:
      'private_key_jwt only: the public keys (RFC 7517 JWKs) the client signs its assertions with: Ed25519 (OKP), P-256 (EC) or RSA of 2048 bits or more. Private members are refused. A key without kid gets its RFC 7638 thumbprint as kid.',
    ...messages({ type: 'must be a JWK Set: {"keys": [...]}', required: 'must be a JWK Set: {"keys": [...]}' }),
  },
);

/** The public JWK Set of a private_key_jwt client, as shown; null for a secret client. */
const JwksSchema = Nullable(Type.Object({ keys: Type.Array(Type.Record(Type.String(), Type.String()), { description: 'Public JWKs, each with its kid.' }) }));

/** The longest grace period of a secret roll: 7 days. */
export const MAX_SECRET_GRACE_SECONDS = 604_800;

const NON_EMPTY_TEXT = 'is required and must be non-empty text';

/** The creation body; `scopes`: the declared scopes it is checked against (undefined: the documented form). */
export function clientInputSchema(scopes?: readonly string[]) {
  return Type.Object(
    {
      name: Type.String({
        minLength: 1,
        maxLength: 200,
        // Something besides spaces, and no control characters other than tab and line breaks.
        pattern: '\\S',
        not: { pattern: '[\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f]' },
        description: 'Shown in lists and logs; stored without leading and trailing spaces.',
        ...messages({
          required: NON_EMPTY_TEXT,
          type: NON_EMPTY_TEXT,
          minLength: NON_EMPTY_TEXT,
          pattern: NON_EMPTY_TEXT,
          not: 'must not contain control characters',
        }),
      }),
      scopes: VocabularyListInput('scope', scopes, 'The scopes the client may request.'),
      account_id: Type.Optional(AccountIdInputSchema),
      resource_server: Type.Optional(
        Type.Boolean({
          default: false,
          description: 'May introspect tokens at /v1/oauth/introspect (RFC 7662 2.1).',
          ...messages({ type: 'must be true or false' }),
        }),
      ),
      token_endpoint_auth_method: Type.Optional(
        // No schema default: the profile decides it (the route), so an absent field must stay absent.
        Type.Enum([...CLIENT_AUTH_METHODS], {
          description:
            'RFC 7591. client_secret_basic or client_secret_post: the client gets a secret and may send it either way; private_key_jwt: no secret, it signs an assertion (RFC 7523) with a key of jwks. Default client_secret_basic; private_key_jwt, the only one accepted, under oauth_profile fapi2.',
        }),
      ),
      jwks: Type.Optional(JwksInputSchema),
      dpop_bound_access_tokens: Type.Optional(
        Type.Boolean({
          description:
            'RFC 9449: every token request must carry a DPoP proof, so every token the client gets is bound to a key of its own. Default false; true, the only value accepted, under oauth_profile fapi2.',
          ...messages({ type: 'must be true or false' }),
        }),
      ),
    },
    { additionalProperties: false },
  );
}

/** The update body (PATCH): the name, the scopes, or both; a client's other fields stay as created. */
export function clientUpdateSchema(scopes?: readonly string[]) {
  const { name, scopes: scopeList } = clientInputSchema(scopes).properties;
  return Type.Object(
    { name: Type.Optional(name), scopes: Type.Optional(scopeList) },
    { additionalProperties: false, minProperties: 1, ...messages({ minProperties: 'must give name, scopes or both' }) },
  );
}
export const ClientUpdateSchema = clientUpdateSchema();
export type ClientUpdate = Static<typeof ClientUpdateSchema>;

export const ClientInputSchema = clientInputSchema();
export type ClientInput = Static<typeof ClientInputSchema>;

export const ClientParamsSchema = Type.Object({ client_id: Type.String({ description: 'The client_id (a UUID).' }) });

export const ClientSchema = Type.Object({
  client_id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  scopes: VocabularyList('scope'),
  account_id: AccountIdSchema,
  resource_server: Type.Boolean({ description: 'May introspect tokens.' }),
  token_endpoint_auth_method: Type.Enum([...CLIENT_AUTH_METHODS], { description: 'How the client authenticates (RFC 7591).' }),
  jwks: JwksSchema,
  dpop_bound_access_tokens: Type.Boolean({ description: 'Every token request must carry a DPoP proof (RFC 9449).' }),
  created_at: Type.String({ format: 'date-time' }),
});
export type ClientView = Static<typeof ClientSchema>;

export const CreatedClientSchema = Type.Object({
  ...ClientSchema.properties,
  client_secret: Type.Optional(Type.String({ description: 'The secret: shown in this answer only. None for a private_key_jwt client.' })),
});
/** A secret client's creation answer (a private_key_jwt client's is a ClientView: no secret). */
export type CreatedClientView = ClientView & { client_secret: string };

/** A client as it is shown and listed: with its last use. */
export const ClientWithUseSchema = Type.Object({
  ...ClientSchema.properties,
  last_used_at: Nullable(
    Type.String({
      format: 'date-time',
      description: 'When it last got a token or made an allowed request with one (recorded every few seconds); null: not since it was created.',
    }),
  ),
});
export type ClientWithUseView = Static<typeof ClientWithUseSchema>;

export const ClientListSchema = Type.Object({
  clients: Type.Array(ClientWithUseSchema),
  next_cursor: NextCursorSchema,
});

const GRACE = `must be a whole number of seconds from 0 to ${MAX_SECRET_GRACE_SECONDS} (7 days)`;

/** The body may be left out (or null): no grace period. */
export const SecretRollInputSchema = Nullable(
  Type.Object(
    {
      grace_seconds: Type.Optional(
        Type.Integer({
          minimum: 0,
          maximum: MAX_SECRET_GRACE_SECONDS,
          default: 0,
          description: 'How long the replaced secret keeps working, in seconds (at most 7 days); 0: refused at once.',
          ...messages({ type: GRACE, minimum: GRACE, maximum: GRACE }),
        }),
      ),
    },
    { additionalProperties: false },
  ),
);

export const RolledSecretSchema = Type.Object({
  ...ClientSchema.properties,
  client_secret: Type.String({ description: 'The new secret; shown only here.' }),
  previous_secret_expires_at: Nullable(
    Type.String({ format: 'date-time', description: 'When the replaced secret stops working; null when grace_seconds was 0.' }),
  ),
});
export type RolledSecretView = Static<typeof RolledSecretSchema>;

export const ClientKeyParamsSchema = Type.Object({
  client_id: Type.String({ description: 'The client_id (a UUID).' }),
  kid: Type.String({ description: 'The kid of the key, URL-encoded.' }),
});

/** A key to add: one public JWK. */
export const ClientKeyInputSchema = Type.Object(
  { jwk: Type.Object({}, { additionalProperties: true, description: 'The public JWK to add; without kid it gets its RFC 7638 thumbprint.' }) },
  { additionalProperties: false },
);
