// The store's scripts as named ioredis commands: the hot-path ones run by SHA (EVALSHA), not by
// sending their text on every request.
import type { Result } from 'ioredis';
import type { RedisClient } from '../redis-connection.js';
import { CONSUME_NONCE, CONSUME_NONCE_NAMING_MASTER, RECORD_USE, RELEASE_ATTEMPT, RESERVE_ATTEMPT } from '../redis-scripts.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    consumeNonce(accountKey: string, nonceKey: string, ttlSeconds: number, version: string): Result<number, Context>;
    /** As consumeNonce, with the master_replid and master_replid2 of the master that ran it. */
    consumeNonceNamingMaster(accountKey: string, nonceKey: string, ttlSeconds: number, version: string): Result<[number, string, string], Context>;
    recordUse(accountKey: string, usageKey: string, at: string, ip: string, fingerprint: string): Result<number, Context>;
    /** numberOfKeys, the failure counters, then the window and each counter's max. */
    reserveFailureAttempt(...keysAndArgs: (string | number)[]): Result<[number, number], Context>;
    releaseFailureAttempt(...keys: (string | number)[]): Result<number, Context>;
  }
}

export function defineStoreCommands(redis: RedisClient): void {
  redis.defineCommand('consumeNonce', { numberOfKeys: 2, lua: CONSUME_NONCE });
  redis.defineCommand('consumeNonceNamingMaster', { numberOfKeys: 2, lua: CONSUME_NONCE_NAMING_MASTER });
  redis.defineCommand('recordUse', { numberOfKeys: 2, lua: RECORD_USE });
  // Failure counters: a variable number of keys, so the key count is the first argument.
  redis.defineCommand('reserveFailureAttempt', { lua: RESERVE_ATTEMPT });
  redis.defineCommand('releaseFailureAttempt', { lua: RELEASE_ATTEMPT });
}
