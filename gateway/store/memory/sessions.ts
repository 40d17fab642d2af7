// Dashboard sessions in the embedded store: short-lived, never in the snapshot.
import type { SessionStore } from '../types.js';
import type { MemoryContext } from './context.js';
import { ExpiringMap } from './expiring-map.js';

export class MemorySessionStore implements SessionStore {
  private readonly sessions: ExpiringMap;

  constructor(context: MemoryContext) {
    this.sessions = new ExpiringMap(context.now);
  }

  /** Drops the sessions that have lapsed. */
  sweep(): void {
    this.sessions.sweep();
  }

  async putSession(id: string, data: string, ttlSeconds: number): Promise<void> {
    this.sessions.set(id, data, ttlSeconds * 1000);
  }

  async getSession(id: string): Promise<string | null> {
    return this.sessions.get(id) ?? null;
  }

  async deleteSession(id: string): Promise<void> {
    this.sessions.delete(id);
  }
}
