// Dashboard sessions on Redis: one key each, expiring with the session.
import type { SessionStore } from '../types.js';
import type { RedisStoreConnection } from './connection.js';

export class RedisSessionStore implements SessionStore {
  constructor(private readonly connection: RedisStoreConnection) {}

  async putSession(id: string, data: string, ttlSeconds: number): Promise<void> {
    await this.connection.guard(() => this.connection.redis.set(this.connection.keys.session(id), data, 'EX', ttlSeconds));
  }

  async getSession(id: string): Promise<string | null> {
    return this.connection.guard(() => this.connection.redis.get(this.connection.keys.session(id)));
  }

  async deleteSession(id: string): Promise<void> {
    await this.connection.guard(() => this.connection.redis.del(this.connection.keys.session(id)));
  }
}
