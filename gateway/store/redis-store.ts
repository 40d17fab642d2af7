// Credential store on Redis, shared by every gateway instance. Commands fail fast when Redis is
// unreachable (no offline queue) so that the gateway fails closed instead of waiting or guessing.
import { Redis, type Result } from 'ioredis';
import { RedisChannelWatcher } from './redis-channel-watcher.js';
import {
  StoreUnavailableError,
  type AttemptLimit,
  type AttemptReservation,
  type BearerState,
  type ClientRecord,
  type CredentialStore,
  type NonceConsumption,
  type ServiceAccountRecord,
  type ServiceAccountUse,
  type SignedRequestState,
} from './types.js';

// KEYS: sa-access:{accessId}, nonce:{accessId}:{nonce}. ARGV: nonce ttl. Runs only once the
// signature has verified; the nonce is consumed only while the account still exists.
// Returns 1 fresh, 0 already used, -1 account gone.
const CONSUME_NONCE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('SET', KEYS[2], '1', 'NX', 'EX', tonumber(ARGV[1])) then return 1 end
return 0`;

// KEYS: sa:{id}, sa-access:{accessId}, sas. ARGV: id, accessId, record.
const CREATE_SERVICE_ACCOUNT = `
if redis.call('EXISTS', KEYS[1]) == 1 or redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('SET', KEYS[2], ARGV[3])
redis.call('SADD', KEYS[3], ARGV[1])
return 1`;

// KEYS: sa:{id}, sas. ARGV: id, key prefix. Deletes the record, its Access ID index and usage.
const DELETE_SERVICE_ACCOUNT = `
local accessId = redis.call('GET', KEYS[1])
if not accessId then return 0 end
redis.call('DEL', KEYS[1], ARGV[2] .. 'sa-access:' .. accessId, ARGV[2] .. 'sa-used:' .. accessId)
redis.call('SREM', KEYS[2], ARGV[1])
return 1`;

// KEYS: sa-access:{accessId}, sa-used:{accessId}. ARGV: usage JSON. Skips deleted accounts.
const RECORD_USE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('SET', KEYS[2], ARGV[1])
return 1`;

// KEYS: meta:{name}. ARGV: '1' when the value is expected absent else '0', expected value, new value,
// change channel. Absence is its own flag: an empty string is a value, not "absent". The change is
// announced in the same script, so no write goes unannounced.
const COMPARE_AND_SET = `
local current = redis.call('GET', KEYS[1])
if (ARGV[1] == '1' and current == false) or (ARGV[1] == '0' and current == ARGV[2]) then
  redis.call('SET', KEYS[1], ARGV[3])
  redis.call('PUBLISH', ARGV[4], '1')
  return 1
end
return 0`;

// KEYS: client:{id}, clients. ARGV: id, record.
const CREATE_CLIENT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('SADD', KEYS[2], ARGV[1])
return 1`;

// KEYS: failure counters. ARGV: window seconds, then each key's max. Checks every key and counts
// the attempt in the same step, so concurrent attempts cannot all pass one check. Returns
// {1, 0} when allowed, {0, ms until the last blocking window ends} when refused.
const RESERVE_ATTEMPT = `
local blocked, wait = false, 0
for i, key in ipairs(KEYS) do
  if tonumber(redis.call('GET', key) or '0') >= tonumber(ARGV[i + 1]) then
    blocked = true
    wait = math.max(wait, redis.call('PTTL', key))
  end
end
if blocked then return {0, wait} end
for _, key in ipairs(KEYS) do
  redis.call('INCR', key)
  redis.call('EXPIRE', key, ARGV[1], 'NX')
end
return {1, 0}`;

// KEYS: failure counters. Takes one back from each; a counter back at zero is deleted rather than
// decremented, so a counter whose window already lapsed is never recreated without an expiry.
const RELEASE_ATTEMPT = `
for _, key in ipairs(KEYS) do
  local count = tonumber(redis.call('GET', key) or '0')
  if count > 1 then redis.call('DECR', key) elseif count == 1 then redis.call('DEL', key) end
end
return 0`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    consumeNonce(accountKey: string, nonceKey: string, ttlSeconds: number): Result<number, Context>;
  }
}

type StoredServiceAccount = Omit<ServiceAccountRecord, 'lastUsedAt' | 'lastUsedIp'>;

export class RedisCredentialStore implements CredentialStore {
  readonly kind = 'redis' as const;
  private readonly redis: Redis;
  /** Change notifications on their own connection, opened by the first watchMeta; its subscriptions are restored by the watcher itself. */
  private readonly watcher = new RedisChannelWatcher(() => this.redis.duplicate({ lazyConnect: true, autoResubscribe: false }));

  constructor(url: string, private readonly prefix: string, options: { commandTimeoutMs?: number } = {}) {
    this.redis = new Redis(url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: options.commandTimeoutMs ?? 2000,
      connectTimeout: 2000,
      // Keep reconnecting in the background; requests fail closed meanwhile.
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    });
    // Connection errors surface as failed commands (503); the event itself needs no handler noise.
    this.redis.on('error', () => {});
    // Watchers re-read through this connection: when it comes back, the re-reads they may have missed happen now.
    this.redis.on('ready', () => this.watcher.notifyAll());
    // Hot-path scripts run by SHA (EVALSHA), not by sending their text on every request.
    this.redis.defineCommand('consumeNonce', { numberOfKeys: 2, lua: CONSUME_NONCE });
  }

  async connect(): Promise<void> {
    await this.guard(() => this.redis.connect());
  }

  private key(name: string): string {
    return this.prefix + name;
  }

  private async guard<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      throw new StoreUnavailableError(error);
    }
  }

  /** Runs a pipeline or transaction; ioredis reports per-command errors in the results, so surface them. */
  private async exec(batch: { exec(): Promise<[Error | null, unknown][] | null> }): Promise<unknown[]> {
    return this.guard(async () => {
      const results = await batch.exec();
      if (!results) throw new Error('transaction aborted');
      const failed = results.find(([error]) => error);
      if (failed) throw failed[0];
      return results.map(([, value]) => value);
    });
  }

  async ping(): Promise<void> {
    await this.guard(() => this.redis.ping());
  }

  async close(): Promise<void> {
    this.watcher.close();
    this.redis.disconnect();
  }

  async createClient(client: ClientRecord): Promise<boolean> {
    const created = await this.guard(() =>
      this.redis.eval(CREATE_CLIENT, 2, this.key(`client:${client.clientId}`), this.key('clients'), client.clientId, JSON.stringify(client)),
    );
    return created === 1;
  }

  async getClient(clientId: string): Promise<ClientRecord | null> {
    const raw = await this.guard(() => this.redis.get(this.key(`client:${clientId}`)));
    return raw ? (JSON.parse(raw) as ClientRecord) : null;
  }

  async listClients(): Promise<ClientRecord[]> {
    const ids = await this.guard(() => this.redis.smembers(this.key('clients')));
    if (ids.length === 0) return [];
    const raws = await this.guard(() => this.redis.mget(ids.map((id) => this.key(`client:${id}`))));
    return raws.filter((r): r is string => r !== null).map((r) => JSON.parse(r) as ClientRecord);
  }

  async deleteClient(clientId: string): Promise<boolean> {
    const [deleted] = await this.exec(this.redis.multi().del(this.key(`client:${clientId}`)).srem(this.key('clients'), clientId));
    return deleted === 1;
  }

  async revokeToken(jti: string, expiresAtSeconds: number): Promise<void> {
    // A token past its exp fails verification anyway; keep the mark a little longer for clock skew.
    await this.guard(() => this.redis.set(this.key(`revoked:${jti}`), '1', 'EXAT', Math.max(expiresAtSeconds + 60, Math.floor(Date.now() / 1000) + 60)));
  }

  async bearerState(clientId: string, jti: string): Promise<BearerState> {
    const [client, revoked] = await this.guard(() => this.redis.mget(this.key(`client:${clientId}`), this.key(`revoked:${jti}`)));
    return { client: client ? (JSON.parse(client) as ClientRecord) : null, revoked: revoked !== null && revoked !== undefined };
  }

  async getMeta(name: string): Promise<string | null> {
    return this.guard(() => this.redis.get(this.key(`meta:${name}`)));
  }

  async compareAndSetMeta(name: string, expected: string | null, value: string): Promise<boolean> {
    const set = await this.guard(() =>
      this.redis.eval(COMPARE_AND_SET, 1, this.key(`meta:${name}`), expected === null ? '1' : '0', expected ?? '', value, this.metaChannel(name)),
    );
    return set === 1;
  }

  watchMeta(name: string, onChange: () => void): () => void {
    return this.watcher.watch(this.metaChannel(name), onChange);
  }

  /** Pub/sub channels are shared by every database of a server: the key prefix keeps instances apart. */
  private metaChannel(name: string): string {
    return this.key(`meta-changed:${name}`);
  }

  async createServiceAccount(account: ServiceAccountRecord): Promise<boolean> {
    const { lastUsedAt: _at, lastUsedIp: _ip, ...stored } = account;
    const created = await this.guard(() =>
      this.redis.eval(
        CREATE_SERVICE_ACCOUNT,
        3,
        this.key(`sa:${account.id}`),
        this.key(`sa-access:${account.accessId}`),
        this.key('sas'),
        account.id,
        account.accessId,
        JSON.stringify(stored),
      ),
    );
    return created === 1;
  }

  private async loadByAccessIds(accessIds: string[]): Promise<ServiceAccountRecord[]> {
    if (accessIds.length === 0) return [];
    const keys = accessIds.flatMap((a) => [this.key(`sa-access:${a}`), this.key(`sa-used:${a}`)]);
    const raws = await this.guard(() => this.redis.mget(keys));
    const accounts: ServiceAccountRecord[] = [];
    for (let i = 0; i < raws.length; i += 2) {
      const record = raws[i];
      if (!record) continue;
      accounts.push(withUsage(JSON.parse(record) as StoredServiceAccount, raws[i + 1] ?? null));
    }
    return accounts;
  }

  async getServiceAccount(id: string): Promise<ServiceAccountRecord | null> {
    const accessId = await this.guard(() => this.redis.get(this.key(`sa:${id}`)));
    if (!accessId) return null;
    const [account] = await this.loadByAccessIds([accessId]);
    return account ?? null;
  }

  async listServiceAccounts(): Promise<ServiceAccountRecord[]> {
    const ids = await this.guard(() => this.redis.smembers(this.key('sas')));
    if (ids.length === 0) return [];
    const accessIds = await this.guard(() => this.redis.mget(ids.map((id) => this.key(`sa:${id}`))));
    return this.loadByAccessIds(accessIds.filter((a): a is string => a !== null));
  }

  async deleteServiceAccount(id: string): Promise<boolean> {
    const deleted = await this.guard(() => this.redis.eval(DELETE_SERVICE_ACCOUNT, 2, this.key(`sa:${id}`), this.key('sas'), id, this.prefix));
    return deleted === 1;
  }

  async serviceAccountForRequest(accessId: string, nonce: string): Promise<SignedRequestState> {
    const [account, used] = await this.guard(() => this.redis.mget(this.key(`sa-access:${accessId}`), this.key(`nonce:${accessId}:${nonce}`)));
    if (!account) return { account: null, nonceUsed: false };
    return { account: withUsage(JSON.parse(account) as StoredServiceAccount, null), nonceUsed: used !== null && used !== undefined };
  }

  async consumeNonce(accessId: string, nonce: string, nonceTtlSeconds: number): Promise<NonceConsumption> {
    const result = await this.guard(() => this.redis.consumeNonce(this.key(`sa-access:${accessId}`), this.key(`nonce:${accessId}:${nonce}`), nonceTtlSeconds));
    return result === 1 ? 'fresh' : result === 0 ? 'used' : 'account_gone';
  }

  async recordServiceAccountUse(uses: ServiceAccountUse[]): Promise<void> {
    if (uses.length === 0) return;
    const pipeline = this.redis.pipeline();
    for (const use of uses) {
      pipeline.eval(RECORD_USE, 2, this.key(`sa-access:${use.accessId}`), this.key(`sa-used:${use.accessId}`), JSON.stringify({ at: use.at, ip: use.ip }));
    }
    await this.exec(pipeline);
  }

  async reserveAttempt(limits: AttemptLimit[], windowSeconds: number): Promise<AttemptReservation> {
    if (limits.length === 0) return { allowed: true, retryAfterSeconds: 0 };
    const keys = limits.map((l) => this.key(`fail:${l.key}`));
    const [allowed, waitMs] = (await this.guard(() =>
      this.redis.eval(RESERVE_ATTEMPT, keys.length, ...keys, windowSeconds, ...limits.map((l) => l.max)),
    )) as [number, number];
    return allowed === 1 ? { allowed: true, retryAfterSeconds: 0 } : { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  }

  async releaseAttempt(keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.guard(() => this.redis.eval(RELEASE_ATTEMPT, keys.length, ...keys.map((k) => this.key(`fail:${k}`))));
  }

  async putSession(id: string, data: string, ttlSeconds: number): Promise<void> {
    await this.guard(() => this.redis.set(this.key(`session:${id}`), data, 'EX', ttlSeconds));
  }

  async getSession(id: string): Promise<string | null> {
    return this.guard(() => this.redis.get(this.key(`session:${id}`)));
  }

  async deleteSession(id: string): Promise<void> {
    await this.guard(() => this.redis.del(this.key(`session:${id}`)));
  }
}

function withUsage(stored: StoredServiceAccount, usage: string | null): ServiceAccountRecord {
  const used = usage ? (JSON.parse(usage) as { at: string; ip: string }) : null;
  return { ...stored, lastUsedAt: used?.at ?? null, lastUsedIp: used?.ip ?? null };
}
