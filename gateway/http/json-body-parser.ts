// The one parser of application/json bodies, for every route of every listener (the admin API, the
// dashboard, the token endpoint): Fastify's own (secure-json-parse, prototype poisoning refused),
// after a depth check of the raw text, so that no over-deep value is ever built, checked by a
// schema or shown in a message. Every refusal is a catalog error.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { invalidField, type GatewayError } from '../errors.js';
import { toGatewayError } from './error-reply.js';
import { depthExcess, MAX_JSON_DEPTH, type DepthExcess } from './json-depth.js';
import { boundedName } from './schema-errors.js';

/** A parser in Fastify's callback form, as its default JSON parser is. */
export type JsonBodyParser = (request: FastifyRequest, body: string, done: (error: Error | null, value?: unknown) => void) => void;

/** The validation_error for a body that nests too deeply: it names the top-level field it happens in. */
export function tooDeepError(excess: DepthExcess): GatewayError {
  // As for any other field error (schema-errors.ts): a name cut short, and the body for no name.
  const field = excess.member ? boundedName(excess.member) : 'body';
  return invalidField(field, `is nested too deeply (a request body may nest lists and objects at most ${MAX_JSON_DEPTH} levels deep)`);
}

/** `standard` for bodies no deeper than MAX_JSON_DEPTH; its refusals as catalog errors. */
export function depthBoundedJsonParser(standard: JsonBodyParser): JsonBodyParser {
  return (request, body, done) => {
    const excess = depthExcess(body, MAX_JSON_DEPTH);
    if (excess) {
      done(tooDeepError(excess));
      return;
    }
    standard(request, body, (error, value) => (error ? done(toGatewayError(error)) : done(null, value)));
  };
}

/** Replaces the listener's application/json parser; before any plugin, so that every scope inherits it. */
export function installJsonBodyParser(app: FastifyInstance): void {
  const { onProtoPoisoning = 'error', onConstructorPoisoning = 'error' } = app.initialConfig;
  // Fastify's default parser takes a callback; its type also allows the promise form.
  const standard = app.getDefaultJsonParser(onProtoPoisoning, onConstructorPoisoning) as JsonBodyParser;
  app.addContentTypeParser('application/json', { parseAs: 'string' }, depthBoundedJsonParser(standard));
}
