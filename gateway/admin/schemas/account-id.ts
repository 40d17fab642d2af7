// account_id, sent upstream as the x-gateway-account-id header on every request of the credential
// (clients and service accounts alike). Checked at creation: a value the HTTP client refuses later
// (line breaks, non-Latin-1) would turn each of those requests into a 502. Never trimmed: the
// upstream gets exactly what was written.
import { Type } from 'typebox';
import { messages, Nullable } from '../../http/schema-helpers.js';

/** Visible ASCII with inner spaces, 1 to 200 characters: what an HTTP header value can carry as is. */
export const ACCOUNT_ID_PATTERN = '^[!-~]([ -~]{0,198}[!-~])?$';

export const AccountIdInputSchema = Nullable(
  Type.String({
    minLength: 1,
    maxLength: 200,
    pattern: ACCOUNT_ID_PATTERN,
    description: 'Sent upstream as x-gateway-account-id: visible ASCII and inner spaces, at most 200 characters. Omit (or null) for none.',
    ...messages({
      type: 'must be non-empty text',
      minLength: 'must be non-empty text',
      pattern:
        'may contain only visible ASCII characters and inner spaces (no line breaks, control or non-ASCII characters, no leading or trailing space): it is sent upstream as the x-gateway-account-id header',
    }),
  }),
);

export const AccountIdSchema = Nullable(Type.String({ description: 'Sent upstream as x-gateway-account-id; null: none.' }));
