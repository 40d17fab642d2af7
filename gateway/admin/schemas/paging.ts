// Admin lists come newest first, in pages: `limit` (default 100, at most 1000) and the opaque `cursor`
// of the previous page's `next_cursor` (null at the end). Query parameters are declared as text:
// request parts are never type-coerced (gateway/http/schema-validation.ts), so the pattern is the rule.
import { Type, type Static } from 'typebox';
import { UUID_PATTERN } from '../../uuid.js';
import { messages, Nullable } from '../../http/schema-helpers.js';

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

const pageQueryFields = {
  limit: Type.Optional(
    Type.String({
      pattern: '^(?:[1-9][0-9]{0,2}|1000)$',
      description: `How many records to answer at most: a whole number from 1 to ${MAX_PAGE_SIZE}; default ${DEFAULT_PAGE_SIZE}.`,
      examples: ['100'],
      ...messages({ pattern: `must be a whole number from 1 to ${MAX_PAGE_SIZE}` }),
    }),
  ),
  cursor: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z0-9_.:-]{1,512}$',
      description: 'The next_cursor of the previous page; omit it for the first page.',
      ...messages({ pattern: 'is not a cursor this API returned (use next_cursor of the previous page)' }),
    }),
  ),
};

export const PageQuerySchema = Type.Object(pageQueryFields, { additionalProperties: false });

/** The service account list also finds one account by its full Access ID (for support staff). */
export const ServiceAccountListQuerySchema = Type.Object(
  {
    ...pageQueryFields,
    access_id: Type.Optional(
      Type.String({
        pattern: UUID_PATTERN,
        description: 'A full Access ID: the answer lists the one account behind it (or none), never echoing the ID. Not combined with cursor.',
        ...messages({ pattern: 'must be a full Access ID (a UUID)' }),
      }),
    ),
  },
  { additionalProperties: false },
);

/** DELETE /admin/v1/service-accounts?access_id=...: the account to delete, by its full Access ID. */
export const ServiceAccountAccessIdQuerySchema = Type.Object(
  {
    access_id: Type.String({
      pattern: UUID_PATTERN,
      description: 'The full Access ID of the account to delete, as a caller sends it in x-access-id.',
      ...messages({ pattern: 'must be a full Access ID (a UUID)' }),
    }),
  },
  { additionalProperties: false },
);

export type PageQuery = Static<typeof PageQuerySchema>;

export const NextCursorSchema = Nullable(Type.String({ description: 'The cursor of the next page; null on the last page.' }));
