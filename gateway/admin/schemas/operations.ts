// Answers of the admin API's operations on the gateway itself: the active policy (signing keys: signing-keys.ts).
import { Type } from 'typebox';
import { AUTH_SCHEMES, DIGEST_CHECKS, UPSTREAMS } from '../../policy/policy-loader.js';
import { PERMISSION_NAMES, SCOPES } from '../../policy/vocabulary.js';
import { Nullable, VocabularyName } from '../../http/schema-helpers.js';
import { VocabularyList } from './vocabulary-list.js';

const PolicyRouteSchema = Type.Object(
  {
    id: Type.String({ description: 'Names the route in metrics and logs.' }),
    method: Type.String(),
    path: Type.String({ description: 'The path template, e.g. /v1/sales/{id}.' }),
    host: Nullable(Type.String({ description: 'The host the route is limited to; null: any.' })),
    upstream: VocabularyName(UPSTREAMS),
    auth: VocabularyName(AUTH_SCHEMES),
    scopes: VocabularyList(SCOPES),
    permissions: VocabularyList(PERMISSION_NAMES),
    rate_limit: Nullable(
      Type.Object({ requests: Type.Integer(), per_seconds: Type.Integer() }, { description: 'Requests per credential and window; null: not limited.' }),
    ),
    digest: VocabularyName(DIGEST_CHECKS, {
      description:
        'Who checks a signed body against its Content-Digest when an edge proxy asks a decision without the body: the gateway (refused), or the upstream.',
    }),
  },
  // Members the policy gains later are shown as they are (a policy holds no secret).
  { additionalProperties: true },
);

export const PolicySchema = Type.Object({ routes: Type.Array(PolicyRouteSchema) });
