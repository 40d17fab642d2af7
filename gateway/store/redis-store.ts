// Credential store on Redis, shared by every gateway instance. Commands fail fast when Redis is
// unreachable (no offline queue) so that the gateway fails closed instead of waiting or guessing.
import { Redis } from 'ioredis';
import {
  StoreUnavailableError,
  type BearerState,
  type ClientRecord,
  type CredentialStore,
  type ServiceAccountRecord,
  type ServiceAccountUse,
  type SignedRequestState,
} from './types.js';

// KEYS: sa-access:{accessId}, nonce:{accessId}:{nonce}. ARGV: nonce ttl.
// The nonce is consumed only for a live account, in the same round trip that reads it.
const SIGNED_REQUEST_STATE = `
local account = redis.call('GET', KEYS[1])
if not account then return {false, 0} end
local fresh = redis.call('SET', KEYS[2], '1', 'NX', 'EX', tonumber(ARGV[1]))
if fresh then return {account, 1} end
return {account, 0}`;

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

// KEYS: meta:{name}. ARGV: '1' when the value is expected absent else '0', expected value, new value.
// Absence is its own flag: an empty string is a value, not "absent".
const COMPARE_AND_SET = `
local current = redis.call('GET', KEYS[1])
if (ARGV[1] == '1' and current == false) or (ARGV[1] == '0' and current == ARGV[2]) then
  redis.call('SET', KEYS[1], ARGV[3])
  return 1
end
return 0`;

// KEYS: client:{id}, clients. ARGV: id, record.
const CREATE_CLIENT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('SADD', KEYS[2], ARGV[1])
return 1`;

type StoredServiceAccount = Omit<ServiceAccountRecord, 'lastUsedAt' | 'lastUsedIp'>;

export class RedisCredentialStore implements CredentialStore {
  readonly kind = 'redis' as const;
  private readonly redis: Redis;

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
    const set = await this.guard(() => this.redis.eval(COMPARE_AND_SET, 1, this.key(`meta:${name}`), expected === null ? '1' : '0', expected ?? '', value));
    return set === 1;
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

  async signedRequestState(accessId: string, nonce: string, nonceTtlSeconds: number): Promise<SignedRequestState> {
    const [account, fresh] = (await this.guard(() =>
      this.redis.eval(SIGNED_REQUEST_STATE, 2, this.key(`sa-access:${accessId}`), this.key(`nonce:${accessId}:${nonce}`), nonceTtlSeconds),
    )) as [string | null, number];
    return { account: account ? withUsage(JSON.parse(account) as StoredServiceAccount, null) : null, nonceFresh: fresh === 1 };
  }

  async recordServiceAccountUse(uses: ServiceAccountUse[]): Promise<void> {
    if (uses.length === 0) return;
    const pipeline = this.redis.pipeline();
    for (const use of uses) {
      pipeline.eval(RECORD_USE, 2, this.key(`sa-access:${use.accessId}`), this.key(`sa-used:${use.accessId}`), JSON.stringify({ at: use.at, ip: use.ip }));
    }
    await this.exec(pipeline);
  }

  async failureCounts(keys: string[]): Promise<number[]> {
    if (keys.length === 0) return [];
    const raws = await this.guard(() => this.redis.mget(keys.map((k) => this.key(`fail:${k}`))));
    return raws.map((r) => (r ? Number(r) : 0));
  }

  async addFailure(keys: string[], windowSeconds: number): Promise<void> {
    const pipeline = this.redis.pipeline();
    for (const k of keys) {
      pipeline.incr(this.key(`fail:${k}`));
      pipeline.expire(this.key(`fail:${k}`), windowSeconds, 'NX');
    }
    await this.exec(pipeline);
  }

  async failureWindowRemaining(key: string): Promise<number> {
    const ttl = await this.guard(() => this.redis.ttl(this.key(`fail:${key}`)));
    return Math.max(ttl, 0);
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
