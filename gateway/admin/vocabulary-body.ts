// Bodies that name scopes or permissions are checked against the vocabulary the policy declares
// now: a reload may add or remove names, while Fastify compiles a route's schemas once. Such a route
// validates its body with the schema built from the current vocabulary (compiled again only when a
// reload replaced it), by the same AJV settings as every other route, so a failure reads the same:
// `scopes: "root" is not one of: sales, products`.
import { Ajv, type ValidateFunction } from 'ajv';
import type { FastifySchema, FastifySchemaCompiler } from 'fastify';
import type { TSchema } from 'typebox';
import { SCHEMA_VALIDATOR } from '../http/schema-validation.js';
import type { Vocabulary } from '../policy/vocabulary.js';

function newValidator(): Ajv {
  // Fastify's own compiler starts from addUsedSchema: false; the rest are the listeners' settings.
  const ajv = new Ajv({ addUsedSchema: false, ...SCHEMA_VALIDATOR.customOptions });
  for (const plugin of SCHEMA_VALIDATOR.plugins ?? []) if (typeof plugin === 'function') plugin(ajv);
  SCHEMA_VALIDATOR.onCreate?.(ajv);
  return ajv;
}

const ajv = newValidator();

/** The validator of the body built for the vocabulary in force; the other parts of the route as usual. */
export function vocabularyBodyValidator(bodyFor: (vocabulary: Vocabulary) => TSchema, current: () => Vocabulary): FastifySchemaCompiler<FastifySchema> {
  let compiledFor: { vocabulary: Vocabulary; schema: TSchema; validate: ValidateFunction } | undefined;
  const validate = (data: unknown): boolean => {
    const vocabulary = current();
    if (compiledFor?.vocabulary !== vocabulary) {
      // The replaced schema leaves AJV's cache, so reloads do not accumulate compiled schemas.
      if (compiledFor) ajv.removeSchema(compiledFor.schema);
      const schema = bodyFor(vocabulary);
      compiledFor = { vocabulary, schema, validate: ajv.compile(schema) };
    }
    const valid = compiledFor.validate(data);
    validate.errors = compiledFor.validate.errors;
    return valid;
  };
  validate.errors = null as ValidateFunction['errors'];
  return ({ schema, httpPart }) => (httpPart === 'body' ? validate : ajv.compile(schema as TSchema));
}
