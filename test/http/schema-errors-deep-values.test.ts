// The validation-message formatter shows the failing value cut short; a value nested far deeper
// than the stack allows (the JSON parser refuses such bodies, but the formatter must not depend on
// that) is shown like any other, never a RangeError that would make the answer a 500.
import type { FastifySchemaValidationError } from 'fastify';
import t from 'tap';
import { schemaErrorsToGatewayError } from '../../gateway/http/schema-errors.js';

function deepList(levels: number): unknown {
  let value: unknown = 1;
  for (let level = 0; level < levels; level++) value = [value];
  return value;
}

function ajvError(
  keyword: string,
  instancePath: string,
  params: Record<string, unknown>,
  data: unknown,
  parentSchema: Record<string, unknown> = {},
): FastifySchemaValidationError {
  return { keyword, instancePath, schemaPath: `#/${keyword}`, params, message: 'is not valid', data, parentSchema } as FastifySchemaValidationError;
}

t.test('a value 100,000 levels deep in each message that shows a value', async (t) => {
  const deep = deepList(100_000);
  const shown = `${'['.repeat(57)}...`;
  const cases: Array<[FastifySchemaValidationError, string]> = [
    [ajvError('enum', '/scopes/0', { allowedValues: ['sales', 'stats'] }, deep), `scopes: ${shown} is not one of: sales, stats`],
    [ajvError('type', '/allowed_ips/0', { type: 'string' }, deep), `allowed_ips: ${shown} is not a string`],
    [
      ajvError('enum', '/scopes/0', { allowedValues: ['sales'] }, deep, { 'x-messages': { enum: '{value} is not a scope' } }),
      `scopes: ${shown} is not a scope`,
    ],
  ];
  for (const [error, message] of cases) {
    const answer = schemaErrorsToGatewayError([error], 'body');
    t.match(answer, { code: 'validation_error', message }, message);
  }
});
