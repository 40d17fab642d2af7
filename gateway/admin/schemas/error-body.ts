// The one error body of the admin listener (gateway/http/error-reply.ts), shared by every route's
// error answers through a $ref, so the OpenAPI document lists the catalog once.
import { Type, type Static } from 'typebox';
import { ERRORS } from '../../errors.js';

export const ERROR_BODY_ID = 'Error';

export const ErrorBodySchema = Type.Object(
  {
    error: Type.Enum(Object.keys(ERRORS), { description: 'A stable code of the error catalog (docs/errors.md).' }),
    message: Type.String({ description: 'What went wrong; for validation errors, "<field>: <what is wrong>".' }),
    request_id: Type.String(),
    field: Type.Optional(Type.String({ description: 'For validation errors: the body field or query parameter at fault.' })),
  },
  // More members that help the client fix its request may follow (never a secret).
  { $id: ERROR_BODY_ID, additionalProperties: Type.String() },
);
export type ErrorBody = Static<typeof ErrorBodySchema>;

const WHEN: Record<number, string> = {
  400: 'Invalid input (validation_error): `field` names the field or query parameter, `message` what is wrong. Nothing was written.',
  401: 'Missing or wrong admin token, or no dashboard session (admin_unauthorized).',
  403: 'A dashboard session without its CSRF token on a change (csrf_failed).',
  404: 'No such resource (not_found).',
  503: 'The credential store cannot be reached (store_unavailable), or a change was not confirmed on a Redis replica in time (change_not_confirmed: it may or may not have been applied; repeating it is safe).',
};

/** The error answers of an admin route: 401, 403 and 503 always, plus the given statuses. */
export function adminErrors(described: Record<number, string> = {}): Record<number, ReturnType<typeof errorAnswer>> {
  const statuses = { 401: WHEN[401]!, 403: WHEN[403]!, 503: WHEN[503]!, ...described };
  return Object.fromEntries(Object.entries(statuses).map(([status, description]) => [status, errorAnswer(description)]));
}

function errorAnswer(description: string) {
  return Type.Unsafe<ErrorBody>({ $ref: `${ERROR_BODY_ID}#`, description });
}

/** The usual description of a status, for routes that add nothing to it. */
export function usual(status: 400 | 404): string {
  return WHEN[status]!;
}
