// The admin API's JWT signing key contracts: the key list, rotation and retirement. Only public
// facts about a key (kid, algorithm, dates, state) are ever part of an answer, never key material.
import { Type } from 'typebox';
import { JWT_ALGORITHMS } from '../../config/settings.js';
import { UUID_PATTERN } from '../../uuid.js';
import { messages, Nullable, VocabularyName } from '../../http/schema-helpers.js';

export const SIGNING_KEY_STATES = ['active', 'rotated_out', 'retired'] as const;

/** Keys the gateway generates have a UUID kid (a key file's keys cannot be retired through the API). */
export const SigningKeyParamsSchema = Type.Object({
  kid: Type.String({
    pattern: UUID_PATTERN,
    description: 'The key id (kid), a UUID, as GET /admin/v1/signing-keys lists it.',
    ...messages({ pattern: 'must be the kid of a signing key: a lower-case UUID, as GET /admin/v1/signing-keys lists it' }),
  }),
});

const DateTime = (description: string) => Nullable(Type.String({ format: 'date-time', description }));

export const SigningKeySchema = Type.Object({
  kid: Type.String({ description: 'The key id, the kid header of the tokens it signs.' }),
  alg: VocabularyName(JWT_ALGORITHMS),
  state: VocabularyName(SIGNING_KEY_STATES, {
    description:
      'active: signs new tokens; rotated_out: verifies the tokens it signed until verifies_until; retired: verifies nothing (POST /admin/v1/signing-keys/{kid}/retire).',
  }),
  created_at: DateTime('When the key was made; null for keys from GATEWAY_JWT_SIGNING_KEY_FILE.'),
  verifies_until: DateTime(
    "When the last token it signed has expired and the key leaves the list; null while active, once retired, and for a key file's keys.",
  ),
  retired_at: DateTime('When an operator retired it; null unless retired.'),
});

export const SigningKeyListSchema = Type.Object({
  keys: Type.Array(SigningKeySchema, { description: 'The active key first, then the keys rotated out (newest first), then the retired ones (newest first).' }),
});

export const SigningKeyRetirementSchema = Type.Object({
  ...SigningKeySchema.properties,
  already_retired: Type.Boolean({ description: 'True when the key had been retired before this request (retired_at says when): nothing changed.' }),
});

export const SigningKeyRotationSchema = Type.Object({
  active_kid: Type.String({ description: 'The key that signs from now on.' }),
  previous_kid: Nullable(Type.String({ description: 'The key it replaced; it verifies until the tokens it signed have expired.' })),
});
