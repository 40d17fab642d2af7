// Route options for a schema that describes a route in the OpenAPI document while Fastify neither
// validates nor serializes with it. The OAuth endpoints need this: they check their forms in the
// order RFC 6749 ranks the errors (client authentication first, then grant type, then scope), and
// answer exactly the JSON their steps build.
import type { FastifySchemaCompiler, FastifySerializerCompiler } from 'fastify';

const acceptAnything: FastifySchemaCompiler<unknown> = () => () => true;
const asJson: FastifySerializerCompiler<unknown> = () => (data) => JSON.stringify(data);

export const DOCUMENTATION_ONLY = { validatorCompiler: acceptAnything, serializerCompiler: asJson };
