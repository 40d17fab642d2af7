// The signed-request hot path on Redis: one read-only round trip before the signature is verified
// (the account and whether the nonce was used), one write once it is (the nonce consumed, in the
// account's slot, only while the record is still the version read).
import { frozenAccount } from '../frozen-records.js';
import { masterIdentityOf } from '../failover-fence.js';
import type { NonceConsumption, SignedRequestState } from '../types.js';
import type { RedisStoreConnection } from './connection.js';
import { recordVersion, withUsage, type StoredServiceAccount } from './stored-account.js';

const CONSUMPTIONS: Record<number, NonceConsumption> = { 1: 'fresh', 0: 'used', [-1]: 'account_gone', [-2]: 'account_changed' };

export async function serviceAccountForRequest(connection: RedisStoreConnection, accessId: string, nonce: string): Promise<SignedRequestState> {
  const { redis, keys } = connection;
  const [account, used] = await connection.guard(() => redis.mget(keys.account(accessId), keys.nonce(accessId, nonce)));
  if (!account) return { account: null, nonceUsed: false };
  // Frozen: the signature stage keeps it between requests (account-cache.ts).
  return {
    account: frozenAccount(withUsage(JSON.parse(account) as StoredServiceAccount, null)),
    nonceUsed: used !== null && used !== undefined,
    version: recordVersion(account),
  };
}

/** How the nonce is consumed depends on the failover guard: WAIT for the replicas, plainly, or naming the master (failover-fence.ts). */
export async function consumeNonce(
  connection: RedisStoreConnection,
  accessId: string,
  nonce: string,
  nonceTtlSeconds: number,
  version?: string,
  createdSeconds?: number,
): Promise<NonceConsumption> {
  const { redis, keys: storeKeys } = connection;
  const keys = [storeKeys.account(accessId), storeKeys.nonce(accessId, nonce)] as const;
  if (connection.nonceFailover === 'wait') {
    // Only a fresh nonce waits for the replicas; a refused one is refused whatever they hold.
    const result = await connection.guard(() =>
      connection.replicaAck.write<number>(keys[0], (pipeline) => pipeline.consumeNonce(...keys, nonceTtlSeconds, version ?? ''), {
        subject: 'nonce',
        barrier: false,
        needed: (answer) => answer === 1,
      }),
    );
    return CONSUMPTIONS[result] ?? 'account_gone';
  }
  if (connection.nonceFailover === 'off') {
    const result = await connection.guard(() => redis.consumeNonce(...keys, nonceTtlSeconds, version ?? ''));
    return CONSUMPTIONS[result] ?? 'account_gone';
  }
  const [result, replid, replid2] = await connection.guard(() => redis.consumeNonceNamingMaster(...keys, nonceTtlSeconds, version ?? ''));
  const consumption = CONSUMPTIONS[result] ?? 'account_gone';
  // A nonce fresh to a master that took over may have been used on the one before it: failover-fence.ts.
  if (consumption === 'fresh' && createdSeconds !== undefined)
    await connection.fence.check(await connection.guard(async () => masterIdentityOf(replid, replid2)), createdSeconds);
  return consumption;
}
