// Admin API for the JWT signing keys: list them, rotate, and retire a rotated-out key before its
// tokens have expired (a stolen key). Answers carry kids, algorithms and dates, never key material.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { actorOf, audit } from '../http/audit.js';
import type { SigningKeyInfo, SigningKeys } from '../oauth/signing-keys.js';
import { ADMIN_SECURITY } from './api-document.js';
import { adminErrors, usual } from './schemas/error-body.js';
import { described } from '../http/schema-helpers.js';
import {
  SigningKeyListSchema,
  SigningKeyParamsSchema,
  SigningKeyRetirementSchema,
  SigningKeyRotationSchema,
  type SigningKeySchema,
} from './schemas/signing-keys.js';

export type SigningKeyView = Static<typeof SigningKeySchema>;
export type SigningKeyRetirementView = Static<typeof SigningKeyRetirementSchema>;

const TAGS = ['Signing keys'];
const FROM_FILE = 'validation_error: the signing keys come from GATEWAY_JWT_SIGNING_KEY_FILE (change that file instead).';

export function publicSigningKey(key: SigningKeyInfo): SigningKeyView {
  return { kid: key.kid, alg: key.alg, state: key.state, created_at: key.createdAt, verifies_until: key.verifiesUntil, retired_at: key.retiredAt };
}

export function registerSigningKeyRoutes(parent: FastifyInstance, keys: SigningKeys): void {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/admin/v1/signing-keys',
    {
      schema: {
        summary: 'List the JWT signing keys: the active key, the keys rotated out (verifying until their tokens have expired) and the retired ones.',
        description: 'Read from the store, as every instance follows it. A rotated-out or retired key leaves the list once every token it signed has expired.',
        tags: TAGS,
        security: ADMIN_SECURITY,
        response: { 200: described(SigningKeyListSchema, 'The keys.'), ...adminErrors() },
      },
    },
    async () => ({ keys: (await keys.list()).map(publicSigningKey) }),
  );

  app.post(
    '/admin/v1/signing-keys/rotate',
    {
      schema: {
        summary: 'Rotate the JWT signing key; every instance signs with the new key at once, and the old one verifies until its tokens have expired.',
        tags: TAGS,
        security: ADMIN_SECURITY,
        response: { 200: described(SigningKeyRotationSchema, 'Rotated.'), ...adminErrors({ 400: FROM_FILE }) },
      },
    },
    async (request) => {
      const { kid, previousKid } = await keys.rotate();
      audit(request.log, 'credential.rotated', { kind: 'signing_key', kid, previous_kid: previousKid, by: actorOf(request) });
      return { active_kid: kid, previous_kid: previousKid };
    },
  );

  app.post(
    '/admin/v1/signing-keys/:kid/retire',
    {
      schema: {
        summary: 'Retire a rotated-out signing key now (a stolen key): its tokens get 401 on every instance from this answer on, and it leaves the JWKS.',
        description:
          'For a key that must stop verifying before its tokens expire. The store marks the key retired, and every instance checks that mark with each token (in the store round trip that also checks revocation and the client), so no instance honours the key after this answer, whatever it holds in memory; each instance also drops the key from its JWKS when the store announces the change (at once; within 30 s if the announcement is lost). The active key cannot be retired: rotate first. Retiring a retired key again changes nothing (200, already_retired: true). Audited as credential.retired.',
        tags: TAGS,
        security: ADMIN_SECURITY,
        params: SigningKeyParamsSchema,
        response: {
          200: described(SigningKeyRetirementSchema, 'Retired (or already retired).'),
          ...adminErrors({
            400: `${usual(400)} Or ${FROM_FILE}`,
            404: 'not_found: no key with that kid, or a rotated-out key whose tokens have all expired (it verifies nothing any more).',
            409: 'signing_key_active: the key is the active signing key; rotate first, then retire it.',
          }),
        },
      },
    },
    async (request) => {
      const { key, alreadyRetired } = await keys.retire(request.params.kid);
      // Only a change is audited: a repeat retires nothing.
      if (!alreadyRetired) audit(request.log, 'credential.retired', { kind: 'signing_key', kid: key.kid, by: actorOf(request) });
      return { ...publicSigningKey(key), already_retired: alreadyRetired };
    },
  );
}
