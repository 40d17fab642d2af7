// Reads the dashboard session from its cookie, and checks it for the admin API: a session signed
// in with a credential that is no longer valid is ignored, and every change must carry the
// session's CSRF token in x-csrf-token (compared in constant time).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Settings } from '../config/settings.js';
import { GatewayError } from '../errors.js';
import { secretsEqual } from '../http/secrets-equal.js';
import { credentialDigest, type DashboardSession, type DashboardSessions } from './sessions.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The dashboard session that authenticated this request, if any (for audit logs). */
    dashboardSession?: DashboardSession;
  }
}

export const CSRF_HEADER = 'x-csrf-token';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export class DashboardAuth {
  /** __Host- pins the cookie to this origin, but browsers accept it only with Secure. */
  readonly cookieName: string;

  constructor(
    private readonly settings: Settings,
    readonly sessions: DashboardSessions,
  ) {
    this.cookieName = settings.cookieSecure ? '__Host-gateway_session' : 'gateway_session';
  }

  /** The credential a session must still match: the current admin token or the user's current hash. */
  private currentCredential(session: DashboardSession): string | undefined {
    if (session.method === 'token') return this.settings.adminToken;
    return this.settings.dashboardUsers.find((u) => u.username === session.user)?.passwordHash;
  }

  sessionId(request: FastifyRequest): string | undefined {
    const value = request.cookies?.[this.cookieName];
    return value === undefined || value === '' ? undefined : value;
  }

  async sessionOf(request: FastifyRequest): Promise<{ id: string; session: DashboardSession } | null> {
    const id = this.sessionId(request);
    if (id === undefined) return null;
    const session = await this.sessions.get(id);
    if (!session) return null;
    const credential = this.currentCredential(session);
    if (credential === undefined || !secretsEqual(session.credentialDigest, credentialDigest(credential))) return null;
    return { id, session };
  }

  /** Throws csrf_failed unless the request is safe or carries the session's CSRF token. */
  requireCsrf(request: FastifyRequest, session: DashboardSession): void {
    if (SAFE_METHODS.has(request.method)) return;
    const given = request.headers[CSRF_HEADER];
    if (typeof given !== 'string' || !secretsEqual(given, session.csrfToken)) throw new GatewayError('csrf_failed');
  }

  /** The check adminGuard runs when a request has no Authorization header (its AdminSessionCheck). */
  readonly sessionCheck = async (request: FastifyRequest): Promise<boolean> => {
    const found = await this.sessionOf(request);
    if (!found) return false;
    this.requireCsrf(request, found.session);
    request.dashboardSession = found.session;
    if (!SAFE_METHODS.has(request.method))
      request.log.info({ dashboard_user: found.session.user, method: request.method, url: request.url }, 'dashboard change');
    return true;
  };

  setCookie(reply: FastifyReply, id: string): void {
    reply.setCookie(this.cookieName, id, {
      httpOnly: true,
      sameSite: 'strict',
      secure: this.settings.cookieSecure,
      path: '/',
      maxAge: this.settings.sessionTtlSeconds,
    });
  }

  clearCookie(reply: FastifyReply): void {
    reply.clearCookie(this.cookieName, { httpOnly: true, sameSite: 'strict', secure: this.settings.cookieSecure, path: '/' });
  }
}
