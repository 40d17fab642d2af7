// Sign-in (admin token, or a configured user's password), sign-out, and the current session,
// which is how the dashboard's scripts learn the CSRF token (same-origin reads only: no CORS).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { messages } from '../http/schema-helpers.js';
import type { Settings } from '../config/settings.js';
import { GatewayError, invalidField } from '../errors.js';
import { audit } from '../http/audit.js';
import type { Address } from '../net/cidr.js';
import { secretsEqual } from '../http/secrets-equal.js';
import { burnPasswordCheck, verifyPassword } from './password-hash.js';
import type { DashboardAuth } from './session-auth.js';
import type { DashboardSession } from './sessions.js';
import type { FailureThrottle } from '../http/failure-throttle.js';

export interface SignInDependencies {
  settings: Settings;
  auth: DashboardAuth;
  /** Failures count per network (an IPv4 address, an IPv6 /64 by default); password sign-ins also per username, and per username and network. */
  throttle: FailureThrottle;
  /** The client address; undefined when the socket reports none. */
  addressOf(request: FastifyRequest): Address | undefined;
}

const FAILED = 'Sign-in failed: the admin token, or the username and password, are wrong.';
const MAX_SECRET_LENGTH = 1024;

interface Attempt {
  username: string | undefined;
  /** The field the error is shown next to. */
  field: 'token' | 'password';
  verify(): Promise<{ user: string; method: DashboardSession['method']; credential: string } | null>;
}

const Secret = Type.String({
  minLength: 1,
  maxLength: MAX_SECRET_LENGTH,
  ...messages({ minLength: 'is required', maxLength: `must be at most ${MAX_SECRET_LENGTH} characters` }),
});

/** The admin token, or a configured user's name and password. */
const SignInSchema = Type.Object(
  { token: Type.Optional(Secret), username: Type.Optional(Secret), password: Type.Optional(Secret) },
  { additionalProperties: false },
);
type SignIn = Static<typeof SignInSchema>;

function required(value: string | undefined, field: 'username' | 'password'): string {
  if (value === undefined) throw invalidField(field, 'is required');
  return value;
}

function readAttempt(settings: Settings, body: SignIn): Attempt {
  const token = body.token;
  if (token !== undefined) {
    return {
      username: undefined,
      field: 'token',
      verify: async () => (secretsEqual(token, settings.adminToken!) ? { user: 'admin', method: 'token', credential: settings.adminToken! } : null),
    };
  }
  const username = required(body.username, 'username');
  const password = required(body.password, 'password');
  return {
    username,
    field: 'password',
    async verify() {
      const user = settings.dashboardUsers.find((u) => u.username === username);
      if (!user) {
        await burnPasswordCheck(password);
        return null;
      }
      return (await verifyPassword(password, user.passwordHash)) ? { user: user.username, method: 'password', credential: user.passwordHash } : null;
    },
  };
}

/** A sign-in posted from another site's page is refused (login CSRF); browsers always send Origin on POST. */
function requireSameOrigin(request: FastifyRequest): void {
  const origin = request.headers.origin;
  if (origin === undefined) return;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    throw new GatewayError('csrf_failed', 'The Origin header is not this dashboard.');
  }
  if (host !== request.headers.host) throw new GatewayError('csrf_failed', 'The Origin header is not this dashboard.');
}

function sessionBody(session: DashboardSession) {
  return { user: session.user, method: session.method, csrf_token: session.csrfToken, expires_at: session.expiresAt };
}

export function registerSignInRoutes(app: FastifyInstance, deps: SignInDependencies): void {
  const { auth, throttle } = deps;

  app.withTypeProvider<TypeBoxTypeProvider>().post('/dashboard/api/sign-in', { schema: { body: SignInSchema, hide: true } }, async (request, reply) => {
    requireSameOrigin(request);
    const attempt = readAttempt(deps.settings, request.body);
    const clientAddress = deps.addressOf(request);
    // The whole address in the audit log; the throttle counts it by its network.
    const address = clientAddress?.toString() ?? 'unknown';
    // The admin token has no name to count against: only its network is. A count for the token
    // itself would let anyone lock the operator out, and would not slow guessing, which the admin
    // API's Bearer check allows anyway.
    const verified = await throttle.attempt({ address: clientAddress, credential: attempt.username }, () => attempt.verify());
    if (!verified) {
      audit(request.log, 'admin.sign_in_failed', { method: attempt.field === 'token' ? 'token' : 'password', username: attempt.username ?? null, address });
      throw new GatewayError('admin_unauthorized', FAILED, { field: attempt.field });
    }
    // A fresh id on every sign-in: an id planted before sign-in never becomes a session.
    const previous = auth.sessionId(request);
    if (previous !== undefined) await auth.sessions.end(previous);
    const { id, session } = await auth.sessions.create(verified.user, verified.method, verified.credential);
    auth.setCookie(reply, id);
    audit(request.log, 'admin.sign_in', { dashboard_user: session.user, method: session.method, address });
    return reply.header('cache-control', 'no-store').send(sessionBody(session));
  });

  app.post('/dashboard/api/sign-out', async (request, reply) => {
    const found = await auth.sessionOf(request);
    if (found) {
      auth.requireCsrf(request, found.session);
      await auth.sessions.end(found.id);
      audit(request.log, 'admin.sign_out', { dashboard_user: found.session.user });
    }
    auth.clearCookie(reply);
    return reply.code(204).send();
  });

  app.get('/dashboard/api/session', async (request, reply) => {
    const found = await auth.sessionOf(request);
    if (!found) throw new GatewayError('admin_unauthorized', 'Not signed in, or the session has expired.');
    return reply.header('cache-control', 'no-store').send(sessionBody(found.session));
  });
}
