// How long a dashboard session lasts (session_ttl_seconds), for the sign-in page to say before
// anyone signs in. Public: it is the same for everyone and tells nothing about any session.
import type { FastifyInstance } from 'fastify';
import type { Settings } from '../config/settings.js';

export function registerSessionPolicyRoute(app: FastifyInstance, settings: Settings): void {
  app.get('/dashboard/api/session-policy', async (_request, reply) =>
    reply.header('cache-control', 'no-store').send({ session_ttl_seconds: settings.sessionTtlSeconds }),
  );
}
