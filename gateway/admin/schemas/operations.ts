// Answers of the admin API's operations on the gateway itself: the active policy (signing keys: signing-keys.ts).
import { Type } from 'typebox';
import { AUTH_SCHEMES, DIGEST_CHECKS, MESSAGE_SIGNING, UPSTREAM_NAME_PATTERN } from '../../policy/policy-loader.js';
import { Nullable, VocabularyName } from '../../http/schema-helpers.js';

const PolicyRouteSchema = Type.Object(
  {
    id: Type.String({ description: 'Names the route in metrics and logs.' }),
    method: Type.String(),
    path: Type.String({ description: 'The path template, e.g. /v1/sales/{id}.' }),
    host: Nullable(Type.String({ description: 'The host the route is limited to; null: any.' })),
    upstream: Type.String({ pattern: UPSTREAM_NAME_PATTERN, description: 'The configured upstream the route forwards to.' }),
    auth: VocabularyName(AUTH_SCHEMES),
    scopes: Type.Array(Type.String(), { description: 'The declared scopes a Bearer token needs (all of them).' }),
    permissions: Type.Array(Type.String(), { description: 'The declared permissions a signing service account needs (all of them).' }),
    rate_limit: Nullable(
      Type.Object({ requests: Type.Integer(), per_seconds: Type.Integer() }, { description: 'Requests per credential and window; null: not limited.' }),
    ),
    digest: VocabularyName(DIGEST_CHECKS, {
      description:
        'Who checks a signed body against its Content-Digest when an edge proxy asks a decision without the body: the gateway (refused), or the upstream.',
    }),
    message_signing: VocabularyName(MESSAGE_SIGNING, {
      description: "fapi-2: requests carry the OAuth client's FAPI 2.0 signature and the gateway signs the responses; none: neither.",
    }),
  },
  // Members the policy gains later are shown as they are (a policy holds no secret).
  { additionalProperties: true },
);

const declaredEntry = {
  name: Type.String(),
  description: Type.String({ description: 'What holding it allows, as the policy file words it.' }),
};

export const PolicySchema = Type.Object({
  routes: Type.Array(PolicyRouteSchema),
  scopes: Type.Array(Type.Object(declaredEntry), {
    description: 'The scopes the policy declares, in declaration order: OAuth clients may be granted these only.',
  }),
  permissions: Type.Array(
    Type.Object({
      ...declaredEntry,
      moves_money: Type.Boolean({ description: 'Marked where permissions are granted, so over-granting stands out.' }),
    }),
    { description: 'The permissions the policy declares, in declaration order: service accounts may be granted these only.' },
  ),
});
