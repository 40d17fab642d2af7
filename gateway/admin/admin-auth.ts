// Who may use the admin API: a caller with the admin token (CLI, automation), or a dashboard
// session (which the dashboard module verifies, including its CSRF token on changes).
import type { FastifyRequest } from 'fastify';
import { GatewayError } from '../errors.js';
import { actorOf, audit } from '../http/audit.js';
import { secretsEqual } from '../http/secrets-equal.js';

/** A second way in, e.g. a dashboard session cookie. Returns false when it does not apply. */
export type AdminSessionCheck = (request: FastifyRequest) => Promise<boolean>;

export function adminGuard(adminToken: string, sessionCheck?: AdminSessionCheck) {
  return async function requireAdmin(request: FastifyRequest): Promise<void> {
    const header = request.headers.authorization;
    if (header !== undefined) {
      const match = /^Bearer +(\S+) *$/i.exec(header);
      if (match && secretsEqual(match[1]!, adminToken)) {
        request.logFields = { actor: actorOf(request) };
        return;
      }
      audit(request.log, 'admin.denied', { reason: 'wrong admin token', method: request.method, path: request.url.split('?', 1)[0] });
      throw new GatewayError('admin_unauthorized', 'The admin token is wrong.', { headers: { 'www-authenticate': 'Bearer realm="gateway-admin"' } });
    }
    if (sessionCheck && (await sessionCheck(request))) {
      request.logFields = { actor: actorOf(request) };
      return;
    }
    throw new GatewayError('admin_unauthorized', undefined, { headers: { 'www-authenticate': 'Bearer realm="gateway-admin"' } });
  };
}
