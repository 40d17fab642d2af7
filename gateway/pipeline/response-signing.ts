// Signing the responses of message_signing routes, set up at start: the key (the configured file, or
// one generated on first use in development), its JWK Set at RESPONSE_SIGNING_JWKS_PATH, and the
// start's check that production has a configured key whenever a route signs responses (instances
// with keys of their own would each publish a different one).
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import type { SettingProblem } from '../config/settings-error.js';
import type { Settings } from '../config/settings.js';
import type { BodyBudget } from '../http/body-budget.js';
import { DOCUMENTATION_ONLY } from '../http/documentation-only.js';
import type { PolicyRoute } from '../policy/policy-loader.js';
import {
  generatedResponseSigningKey,
  readResponseSigningKey,
  RESPONSE_SIGNING_JWKS_PATH,
  responseSigningJwks,
  type ResponseSigningKey,
} from '../signing/response-signing-key.js';

/** What signing responses needs, from the settings and the start. */
export interface ResponseSigning {
  readonly key: () => ResponseSigningKey;
  readonly maxBytes: number;
  readonly budget: BodyBudget;
}

type SigningSettings = Pick<Settings, 'environment' | 'responseSigningKeyFile' | 'maxSignedResponseBytes'>;

const JWKS_SCHEMA = {
  summary: 'The public key the responses of message_signing routes are signed with (a JWK Set; its kid is the keyid of each signature).',
  tags: ['OAuth'],
  response: {
    200: Type.Object(
      {
        keys: Type.Array(
          Type.Object({ kty: Type.Literal('OKP'), crv: Type.Literal('Ed25519'), x: Type.String(), kid: Type.String(), use: Type.Literal('sig') }),
        ),
      },
      { description: 'JWK Set of the response-signing key.' },
    ),
  },
};

/** A production start (or reload) with a message_signing route needs the key file. */
export function missingResponseSigningKey(routes: readonly PolicyRoute[], settings: SigningSettings): SettingProblem[] {
  if (settings.environment !== 'production' || settings.responseSigningKeyFile !== undefined) return [];
  const signing = routes.filter((route) => route.messageSigning !== 'none');
  if (signing.length === 0) return [];
  return [
    {
      setting: 'GATEWAY_RESPONSE_SIGNING_KEY_FILE',
      problem: `is required in production when a route signs its responses (message_signing), so that every instance signs with the one published key: route ${signing[0]!.id}${signing.length > 1 ? ` and ${signing.length - 1} more` : ''}`,
    },
  ];
}

/** Registers the JWK Set route; returns what the proxy signs responses with. */
export function registerResponseSigning(app: FastifyInstance, settings: SigningSettings, budget: BodyBudget): ResponseSigning {
  const file = settings.responseSigningKeyFile;
  let key: ResponseSigningKey | undefined = file === undefined ? undefined : readResponseSigningKey(file);
  const current = (): ResponseSigningKey => (key ??= generatedResponseSigningKey());
  app.get(RESPONSE_SIGNING_JWKS_PATH, { schema: JWKS_SCHEMA, ...DOCUMENTATION_ONLY }, async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=300').type('application/http-message-signatures-directory+json');
    return responseSigningJwks(current());
  });
  return { key: current, maxBytes: settings.maxSignedResponseBytes, budget };
}
