// Dashboard sessions in the credential store (shared by every gateway instance). The store key is
// a hash of the session id, so the store's contents never hold a usable cookie value.
import { createHash, randomBytes } from 'node:crypto';
import type { CredentialStore } from '../store/types.js';

export interface DashboardSession {
  /** Who signed in: a dashboard username, or "admin" for the admin token. */
  user: string;
  method: 'token' | 'password';
  /** Sent back in the x-csrf-token header on every change. */
  csrfToken: string;
  /**
   * Digest of the credential used to sign in (the admin token or the user's password hash): a
   * rotated token, a changed password or a removed user ends existing sessions.
   */
  credentialDigest: string;
  createdAt: string;
  expiresAt: string;
}

export function credentialDigest(credential: string): string {
  return createHash('sha256').update(`dashboard-session:${credential}`, 'utf8').digest('base64url');
}

function storeKey(sessionId: string): string {
  return `dashboard:${createHash('sha256').update(sessionId, 'utf8').digest('base64url')}`;
}

function isSession(value: unknown): value is DashboardSession {
  const s = value as Partial<DashboardSession> | null;
  return (
    typeof s === 'object' &&
    s !== null &&
    typeof s.user === 'string' &&
    (s.method === 'token' || s.method === 'password') &&
    typeof s.csrfToken === 'string' &&
    typeof s.credentialDigest === 'string' &&
    typeof s.expiresAt === 'string'
  );
}

export class DashboardSessions {
  constructor(
    private readonly store: CredentialStore,
    private readonly ttlSeconds: number,
  ) {}

  /** Starts a session; returns its id (the cookie value, 256 random bits) and its data. */
  async create(user: string, method: DashboardSession['method'], credential: string): Promise<{ id: string; session: DashboardSession }> {
    const id = randomBytes(32).toString('base64url');
    const now = Date.now();
    const session: DashboardSession = {
      user,
      method,
      csrfToken: randomBytes(32).toString('base64url'),
      credentialDigest: credentialDigest(credential),
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + this.ttlSeconds * 1000).toISOString(),
    };
    await this.store.putSession(storeKey(id), JSON.stringify(session), this.ttlSeconds);
    return { id, session };
  }

  async get(id: string): Promise<DashboardSession | null> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(id)) return null;
    const raw = await this.store.getSession(storeKey(id));
    if (raw === null) return null;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      return null;
    }
    // The store's TTL ends the session; the timestamp guards a store that kept it longer.
    if (!isSession(parsed) || Date.parse(parsed.expiresAt) <= Date.now()) return null;
    return parsed;
  }

  async end(id: string): Promise<void> {
    if (/^[A-Za-z0-9_-]{43}$/.test(id)) await this.store.deleteSession(storeKey(id));
  }
}
