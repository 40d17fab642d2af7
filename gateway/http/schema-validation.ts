// How Fastify checks request parts against route schemas (the admin API's JSON Schemas). One AJV
// configuration for both listeners; the public listener's OAuth schemas only document
// (gateway/http/documentation-only.ts).
import ajvFormats from 'ajv-formats';
import type { FastifyServerOptions } from 'fastify';
import { MESSAGES_KEYWORD } from './schema-errors.js';

type ValidatorOptions = NonNullable<FastifyServerOptions['ajv']>;
type AjvInstance = Parameters<NonNullable<ValidatorOptions['onCreate']>>[0];

/** ajv-formats in full mode; named as its own plugin, which tells Fastify's compiler not to add it again. */
function formatsPlugin(ajv: AjvInstance): AjvInstance {
  return ajvFormats.default(ajv, { mode: 'full' });
}

export const SCHEMA_VALIDATOR: ValidatorOptions = {
  customOptions: {
    // A string is never taken for a boolean or a number: "true" for resource_server is refused.
    // Query parameters are declared as text for the same reason (gateway/admin/schemas/paging.ts).
    coerceTypes: false,
    // An unknown field is a 400 naming it, never silently dropped (additionalProperties: false).
    removeAdditional: false,
    useDefaults: true,
    // The first failure only, as the admin API has always answered (one `field`); also bounds the
    // work a hostile body can cause.
    allErrors: false,
    // Errors carry the failing value and its schema: the messages name both (schema-errors.ts).
    verbose: true,
    // `type: ["string", "null"]`: nullable fields without anyOf, whose errors would be vague.
    allowUnionTypes: true,
  },
  plugins: [formatsPlugin],
  // The schemas' own error texts (an annotation for AJV, an extension in the OpenAPI document).
  onCreate: (ajv) => {
    ajv.addKeyword(MESSAGES_KEYWORD);
  },
};
