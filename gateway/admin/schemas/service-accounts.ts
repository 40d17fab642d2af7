// The admin API's service account contracts: what a route accepts and answers. The
// full Access ID is part of the creation answer only; elsewhere its hint is. What a schema cannot
// say (a public key that parses, CIDR ranges, an expiry in the future) is checked by
// gateway/admin/service-account-input.ts.
import { Type, type Static } from 'typebox';
import { DEFAULT_ALLOWED_IPS, MAX_ALLOWED_IPS } from '../../service-accounts/allowed-ips.js';
import { ACCEPTED_PUBLIC_KEY_FORMS } from '../../service-accounts/public-key-input.js';
import { AccountIdInputSchema, AccountIdSchema } from './account-id.js';
import { NextCursorSchema } from './paging.js';
import { messages, Nullable } from '../../http/schema-helpers.js';
import { VocabularyList, VocabularyListInput } from './vocabulary-list.js';

export const MAX_DESCRIPTION = 200;

const NON_EMPTY_TEXT = 'is required and must be non-empty text';

const PublicKeyInputSchema = Type.Unsafe<string | Record<string, unknown>>({
  // Any text or object: the parser (public-key-input.ts) says precisely what is wrong with a key.
  type: ['string', 'object'],
  description:
    'The Ed25519 public key in any of three forms: an "ssh-ed25519 AAAA... [comment]" line, a PEM "-----BEGIN PUBLIC KEY-----" block (SubjectPublicKeyInfo), or a JWK {"kty":"OKP","crv":"Ed25519","x":"<base64url>"} (an object, or its JSON text). It is stored as the ssh-ed25519 line. A private key (PEM PRIVATE KEY, OPENSSH PRIVATE KEY, a JWK with "d") is refused with 400.',
  examples: [
    'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAICa0C4+T//PYlxEvfrxYKyMtvXJRfQgv6Dz7MN3OQ9G7 payroll',
    '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAJrQLj5P/89iXES9+vFgrIy29clF9CC/oPPsw3c5D0bs=\n-----END PUBLIC KEY-----',
    { kty: 'OKP', crv: 'Ed25519', x: 'JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs' },
  ],
  ...messages({ required: `is required: ${ACCEPTED_PUBLIC_KEY_FORMS}`, type: `must be ${ACCEPTED_PUBLIC_KEY_FORMS}` }),
});

const ALLOWED_IPS = 'must be a non-empty list of IP addresses or CIDR ranges (omit it for 0.0.0.0/0 and ::/0)';
const EXPIRY = 'must be an RFC 3339 UTC timestamp, e.g. "2030-01-31T17:00:00Z" (or null for no expiry)';
/** RFC 3339 in UTC: date, time (fractional seconds allowed), and Z (or +00:00). */
export const RFC3339_UTC_PATTERN = '^(\\d{4})-(\\d{2})-(\\d{2})[Tt](\\d{2}):(\\d{2}):(\\d{2})(\\.\\d{1,9})?(?:[Zz]|\\+00:00)$';

/** The creation body; `permissions`: the declared permissions it is checked against (undefined: the documented form). */
export function serviceAccountInputSchema(permissions?: readonly string[]) {
  return Type.Object(
    {
      description: Type.String({
        minLength: 1,
        maxLength: MAX_DESCRIPTION,
        pattern: '\\S',
        // Shown escaped wherever it is displayed, but never with control characters or broken UTF-16.
        allOf: [
          { not: { pattern: '[\\u0000-\\u001f\\u007f]' }, ...messages({ not: 'must not contain control characters or line breaks' }) },
          { not: { pattern: '[\\ud800-\\udfff]' }, ...messages({ not: 'contains an unpaired surrogate' }) },
        ],
        description: `What the account is for: any text up to ${MAX_DESCRIPTION} characters; stored without leading and trailing spaces.`,
        ...messages({ required: NON_EMPTY_TEXT, type: NON_EMPTY_TEXT, minLength: NON_EMPTY_TEXT, pattern: NON_EMPTY_TEXT }),
      }),
      public_key: PublicKeyInputSchema,
      permissions: VocabularyListInput('permission', permissions, 'The permissions the account is granted.'),
      allowed_ips: Type.Optional(
        Nullable(
          Type.Array(Type.String(), {
            minItems: 1,
            maxItems: MAX_ALLOWED_IPS,
            description: `IPv4/IPv6 addresses or CIDR ranges the account may call from. Default (omitted or null): ${DEFAULT_ALLOWED_IPS.join(' and ')}.`,
            ...messages({ type: ALLOWED_IPS, minItems: ALLOWED_IPS }),
          }),
        ),
      ),
      account_id: Type.Optional(AccountIdInputSchema),
      expires_at: Type.Optional(
        Nullable(
          Type.String({
            pattern: RFC3339_UTC_PATTERN,
            format: 'date-time',
            description:
              'When the credential stops working: an RFC 3339 UTC timestamp (Z or +00:00) in the future. After it, a signed request with the Access ID gets 401 credential_expired. Omit (or null) for no expiry.',
            examples: ['2030-01-31T17:00:00Z'],
            ...messages({ type: EXPIRY, pattern: EXPIRY, format: `{value} is not a real date and time; ${EXPIRY}` }),
          }),
        ),
      ),
    },
    { additionalProperties: false },
  );
}

/** The update body (PATCH): any of description, permissions, allowed_ips and expires_at (null clears it); the keys and the Access ID stay. */
export function serviceAccountUpdateSchema(permissions?: readonly string[]) {
  const { description, permissions: permissionList, allowed_ips, expires_at } = serviceAccountInputSchema(permissions).properties;
  return Type.Object(
    { description: Type.Optional(description), permissions: Type.Optional(permissionList), allowed_ips, expires_at },
    {
      additionalProperties: false,
      minProperties: 1,
      ...messages({ minProperties: 'must give at least one of description, permissions, allowed_ips, expires_at' }),
    },
  );
}
export const ServiceAccountUpdateSchema = serviceAccountUpdateSchema();
export type ServiceAccountUpdate = Static<typeof ServiceAccountUpdateSchema>;

export const ServiceAccountInputSchema = serviceAccountInputSchema();
export type ServiceAccountInput = Static<typeof ServiceAccountInputSchema>;

export const ServiceAccountKeyInputSchema = Type.Object(
  {
    public_key: {
      ...PublicKeyInputSchema,
      description: 'The new Ed25519 public key, in any form the creation accepts (a private key is refused with 400).',
    } as typeof PublicKeyInputSchema,
  },
  { additionalProperties: false },
);
export type ServiceAccountKeyInput = Static<typeof ServiceAccountKeyInputSchema>;

export const ServiceAccountParamsSchema = Type.Object({ id: Type.String({ description: 'The management identifier (sa_...).' }) });
export const ServiceAccountKeyParamsSchema = Type.Object({
  id: Type.String({ description: 'The management identifier (sa_...).' }),
  fingerprint: Type.String({ description: "The key's SHA256:... fingerprint, URL-encoded (e.g. SHA256%3Aabc%2F...)." }),
});

const DateTime = (description?: string) => Type.String({ format: 'date-time', ...(description ? { description } : {}) });

export const ServiceAccountKeySchema = Type.Object({
  public_key: Type.String({ description: 'The ssh-ed25519 line.' }),
  fingerprint: Type.String({ description: 'As ssh-keygen -lf prints it; names the key in DELETE .../keys/{fingerprint}.', examples: ['SHA256:...'] }),
  added_at: DateTime(),
  last_used_at: Nullable(
    DateTime(
      'When a signature by this key last verified (a few seconds behind); null: not since it was added. Before removing the old key of a rotation, check that the new one is in use.',
    ),
  ),
});

export const ServiceAccountSchema = Type.Object({
  id: Type.String({ description: 'Management identifier.' }),
  access_id_hint: Type.String({ description: 'The Access ID, partly hidden.' }),
  description: Type.String(),
  public_key: Type.String({ description: 'The first (oldest) key as an ssh-ed25519 line, whatever form it was given in.' }),
  fingerprint: Type.String({ description: 'The fingerprint of public_key, as ssh-keygen -lf prints it.' }),
  public_keys: Type.Array(ServiceAccountKeySchema, {
    minItems: 1,
    maxItems: 2,
    description: 'Every key, oldest first: one, or two while the account rotates keys (a signature by either verifies).',
  }),
  expires_at: Nullable(DateTime('When the credential stops working (401 credential_expired after it); null: never.')),
  permissions: VocabularyList('permission'),
  allowed_ips: Type.Array(Type.String()),
  account_id: AccountIdSchema,
  created_at: DateTime(),
  last_used_at: Nullable(DateTime()),
  last_used_ip: Nullable(Type.String()),
});
export type ServiceAccountView = Static<typeof ServiceAccountSchema>;

export const CreatedServiceAccountSchema = Type.Object({
  ...ServiceAccountSchema.properties,
  access_id: Type.String({ format: 'uuid', description: 'The full Access ID: shown in this answer only.' }),
});
export type CreatedServiceAccountView = Static<typeof CreatedServiceAccountSchema>;

export const ServiceAccountListSchema = Type.Object({
  service_accounts: Type.Array(ServiceAccountSchema),
  next_cursor: NextCursorSchema,
});
