// A client secret roll, as both stores apply it (each in its own atomic step): the new hash becomes
// the current one; the replaced hash stays accepted for the grace period, or goes at once with none.
// An earlier previous hash is always dropped, so at most two hashes are ever accepted.
import type { ClientRecord } from './types.js';

export function rolledClient(client: ClientRecord, secretHash: string, graceSeconds: number, nowMs: number): ClientRecord {
  const { previousSecretHash: _hash, previousSecretExpiresAt: _until, ...rest } = client;
  if (graceSeconds <= 0 || client.secretHash === null) return { ...rest, secretHash };
  return { ...rest, secretHash, previousSecretHash: client.secretHash, previousSecretExpiresAt: new Date(nowMs + graceSeconds * 1000).toISOString() };
}
