// Audit events: one structured log line per security-relevant event, at info level, with `audit`
// naming the event, so that a log pipeline can route them apart (`audit` present) and alert on
// them. Fields never carry a secret, a token or a full Access ID.
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';

export type AuditEvent =
  | 'credential.created'
  | 'credential.deleted'
  | 'credential.rotated'
  | 'credential.retired'
  | 'credential.key_added'
  | 'credential.key_removed'
  | 'store.repaired'
  | 'admin.sign_in'
  | 'admin.sign_in_failed'
  | 'admin.sign_out'
  | 'admin.denied'
  | 'credential.updated'
  | 'request.denied';

export function audit(log: FastifyBaseLogger, event: AuditEvent, fields: Record<string, unknown>): void {
  log.info({ audit: event, ...fields }, `audit: ${event}`);
}

/** Who made an admin request: the admin token, or a dashboard user (set by the admin guard). */
export function actorOf(request: FastifyRequest): string {
  return request.dashboardSession ? `dashboard:${request.dashboardSession.user}` : 'admin-token';
}
