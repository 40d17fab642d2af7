// OAuth clients on Redis: the record, the token revocation marks beside it (one Cluster slot), and
// retired signing keys. The client index is written before the record on create (listed-create.ts)
// and after it is gone on delete; readers skip an index entry whose record is gone.
import { createHash } from 'node:crypto';
import { rolledClient } from '../client-secret-roll.js';
import { frozenClient } from '../frozen-records.js';
import { createListed, DELETE_RECORD } from '../listed-create.js';
import { pageOf, positionOf } from '../page-cursor.js';
import { MAX_REPLACE_ATTEMPTS, RECORD_CLIENT_USE, REPLACE_IF_UNCHANGED } from '../redis-scripts.js';
import { StoreUnavailableError } from '../store-unavailable-error.js';
import type { BearerState, ClientChange, ClientRecord, ClientStore, ClientUse, OneTimeJwt, Page, PageRequest } from '../types.js';
import type { RedisStoreConnection } from './connection.js';
import { mgetGroups, positionsAfter } from './reads.js';

export class RedisClientStore implements ClientStore {
  constructor(private readonly connection: RedisStoreConnection) {}

  async createClient(client: ClientRecord): Promise<boolean> {
    const { redis, keys } = this.connection;
    const { clientId } = client;
    return this.connection.guard(() =>
      createListed(redis, keys.clientIndex, positionOf(clientId, client.createdAt), [
        [[keys.client(clientId), keys.clientVoid(clientId), JSON.stringify(client)]],
      ]),
    );
  }

  async getClient(clientId: string): Promise<ClientRecord | null> {
    const key = this.connection.keys.client(clientId);
    // Only a record is kept: an absent one is the id a guesser names at the token endpoint.
    const read = async () => {
      const raw = await this.connection.guard(() => this.connection.redis.get(key));
      return [raw ? frozenClient(JSON.parse(raw) as ClientRecord) : undefined];
    };
    const [client] = await this.connection.readTracked([key], read);
    return (client as ClientRecord | undefined) ?? null;
  }

  async listClients(page: PageRequest): Promise<Page<ClientRecord>> {
    const { redis, keys } = this.connection;
    const [positions, raws] = await this.connection.guard(async () => {
      const positions = await positionsAfter(redis, keys.clientIndex, page);
      return [
        positions,
        await mgetGroups(
          redis,
          positions.slice(0, page.limit).map(({ id }) => [keys.client(id)]),
        ),
      ] as const;
    });
    return pageOf(
      positions,
      raws.map(([raw]) => (raw ? (JSON.parse(raw) as ClientRecord) : null)),
      page.limit,
    );
  }

  async deleteClient(clientId: string): Promise<boolean> {
    // The record (and its last use) first: its tokens fail from this moment. Its revocation marks
    // expire on their own. Answered once the replicas have it too (also when it was already gone:
    // an earlier attempt's).
    const key = this.connection.keys.client(clientId);
    const usage = this.connection.keys.clientUsage(clientId);
    const deleted = await this.connection.confirmed<number>(key, (pipeline) => pipeline.eval(DELETE_RECORD, 2, key, usage));
    await this.connection.guard(() => this.connection.redis.zrem(this.connection.keys.clientIndex, clientId));
    await this.cachesUpdated();
    return deleted === 1;
  }

  async rollClientSecret(clientId: string, secretHash: string, graceSeconds: number): Promise<ClientRecord | null> {
    // Read, change, and write back only if the record is still what was read (REPLACE_IF_UNCHANGED,
    // on the record's key, so one slot): a concurrent change makes this one read again.
    const key = this.connection.keys.client(clientId);
    for (let attempt = 0; attempt < MAX_REPLACE_ATTEMPTS; attempt++) {
      const raw = await this.connection.guard(() => this.connection.redis.get(key));
      if (raw === null) return null;
      const rolled = rolledClient(JSON.parse(raw) as ClientRecord, secretHash, graceSeconds, Date.now());
      const replaced = await this.connection.confirmed<number>(key, (pipeline) => pipeline.eval(REPLACE_IF_UNCHANGED, 1, key, raw, JSON.stringify(rolled)));
      if (replaced === 1) {
        // The token endpoint checks secrets against the cached record: the replaced one is refused everywhere once this returns.
        await this.cachesUpdated();
        return rolled;
      }
      if (replaced === -1) return null;
    }
    throw new StoreUnavailableError(new Error(`the client record ${clientId} kept changing during a secret roll`));
  }

  async updateClient(clientId: string, change: (client: ClientRecord) => ClientChange): Promise<ClientRecord | null> {
    // As rollClientSecret: written back only if the record is still what was read.
    const key = this.connection.keys.client(clientId);
    for (let attempt = 0; attempt < MAX_REPLACE_ATTEMPTS; attempt++) {
      const raw = await this.connection.guard(() => this.connection.redis.get(key));
      if (raw === null) return null;
      const client = JSON.parse(raw) as ClientRecord;
      const updated = { ...client, ...change(client) };
      const replaced = await this.connection.confirmed<number>(key, (pipeline) => pipeline.eval(REPLACE_IF_UNCHANGED, 1, key, raw, JSON.stringify(updated)));
      if (replaced === 1) {
        // Scopes and keys are what Bearer requests check.
        await this.cachesUpdated();
        return updated;
      }
      if (replaced === -1) return null;
    }
    throw new StoreUnavailableError(new Error(`the client record ${clientId} kept changing during an update`));
  }

  async revokeToken(clientId: string, jti: string, expiresAtSeconds: number): Promise<void> {
    // A token past its exp fails verification anyway; keep the mark a little longer for clock skew.
    const until = Math.max(expiresAtSeconds + 60, Math.floor(Date.now() / 1000) + 60);
    const key = this.connection.keys.revoked(clientId, jti);
    await this.connection.confirmed(key, (pipeline) => pipeline.set(key, '1', 'EXAT', until));
    await this.cachesUpdated();
  }

  async consumeTokenId(clientId: string, use: OneTimeJwt, jti: string, expiresAtSeconds: number): Promise<boolean> {
    // SET NX: exactly one instance finds it fresh. Kept past exp for clock skew, as revocation marks are.
    const key = this.connection.keys.usedTokenId(clientId, use, createHash('sha256').update(jti).digest('base64url'));
    const until = Math.max(expiresAtSeconds + 60, Math.floor(Date.now() / 1000) + 60);
    const set = await this.connection.confirmed<string | null>(key, (pipeline) => pipeline.set(key, '1', 'EXAT', until, 'NX'));
    return set === 'OK';
  }

  async bearerState(clientId: string, jti: string, kid: string): Promise<BearerState> {
    const { keys } = this.connection;
    const cached = [keys.client(clientId), keys.revoked(clientId, jti), keys.retiredSigningKey(kid)] as const;
    // Old revocation marks (while they may exist) fall under no tracked prefix: read every time then.
    const legacy = Date.now() < this.connection.legacyRevocationsUntil;
    // An unreadable retired-key mark (null) is not kept.
    const read = async () => {
      const state = await this.readBearerState(cached, legacy ? jti : undefined);
      return [state.client, state.revoked, state.signingKeyRetired ?? undefined];
    };
    const [client, revoked, retired] = legacy ? await read() : await this.connection.readTracked(cached, read);
    return { client: client as ClientRecord | null, revoked: revoked as boolean, signingKeyRetired: (retired as boolean | undefined) ?? null };
  }

  /** `legacyJti`: the token's jti while old revocation marks may exist (they are read too). */
  private async readBearerState([client, revoked, retired]: readonly [string, string, string], legacyJti: string | undefined): Promise<BearerState> {
    // The client's keys share a slot; the retired-key mark (and an old revocation mark, only while
    // they may exist) are in others: one MGET on a single server, one per slot at once on a Cluster.
    // Every token names one of a few kids, so on a Cluster their marks sit on one master: losing it
    // must not stop every Bearer request. There an unreadable mark is null (AccessTokens.isRetired).
    const { redis, keys } = this.connection;
    const groups = [[client, revoked], [retired]];
    if (legacyJti !== undefined) groups.push([keys.legacyRevoked(legacyJti)]);
    const [own, mark, legacy] = await this.connection.guard(() => mgetGroups(redis, groups, 1));
    const [record, revocation] = own!;
    return {
      // Frozen: a cached record is shared by every request that finds it.
      client: record ? frozenClient(JSON.parse(record) as ClientRecord) : null,
      revoked: (revocation ?? legacy?.[0] ?? null) !== null,
      signingKeyRetired: mark ? (mark[0] ?? null) !== null : null,
    };
  }

  async recordClientUse(uses: readonly ClientUse[]): Promise<void> {
    const { redis, keys } = this.connection;
    // One script per client (each in its own slot), sent together.
    await this.connection.guard(() =>
      Promise.all(uses.map(({ clientId, at }) => redis.eval(RECORD_CLIENT_USE, 2, keys.client(clientId), keys.clientUsage(clientId), Date.parse(at)))),
    );
  }

  async clientLastUses(clientIds: readonly string[]): Promise<(string | null)[]> {
    const { redis, keys } = this.connection;
    const groups = await this.connection.guard(() =>
      mgetGroups(
        redis,
        clientIds.map((id) => [keys.clientUsage(id)]),
      ),
    );
    return groups.map(([ms]) => (ms && Number.isFinite(Number(ms)) ? new Date(Number(ms)).toISOString() : null));
  }

  async retireSigningKey(kid: string, untilSeconds: number): Promise<void> {
    const key = this.connection.keys.retiredSigningKey(kid);
    await this.connection.confirmed(key, (pipeline) => pipeline.set(key, '1', 'EXAT', untilSeconds));
    await this.cachesUpdated();
  }

  /** After a change Bearer requests or the token endpoint check: answered only once no instance's cache can still hold what it replaced. */
  private async cachesUpdated(): Promise<void> {
    await this.connection.trackedCache?.waitOutLease();
  }
}
