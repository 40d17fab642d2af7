// Dashboard sessions: opaque values that lapse after their time to live.

export interface SessionStore {
  putSession(id: string, data: string, ttlSeconds: number): Promise<void>;
  getSession(id: string): Promise<string | null>;
  deleteSession(id: string): Promise<void>;
}
