// OAuth clients in the embedded store: the records, revoked tokens and retired signing keys, all
// durable (in the snapshot). No await from read to write anywhere: on one thread, no other change
// can come in between.
import { rolledClient } from '../client-secret-roll.js';
import { frozenClient } from '../frozen-records.js';
import { NonceSet } from '../nonce-set.js';
import { pageOf, positionOf } from '../page-cursor.js';
import type { BearerState, ClientChange, ClientRecord, ClientStore, ClientUse, OneTimeJwt, Page, PageRequest } from '../types.js';
import type { MemoryContext } from './context.js';
import { positionsAfter } from './paging.js';
import type { Snapshot } from './snapshot-file.js';

export class MemoryClientStore implements ClientStore {
  private readonly clients = new Map<string, ClientRecord>();
  /** jti -> expiry (epoch seconds). */
  private readonly revoked = new Map<string, number>();
  /** Client id -> when it was last used (ISO 8601). */
  private readonly lastUses = new Map<string, string>();
  /** Retired JWT signing key kid -> until when its tokens fail (epoch seconds). */
  private readonly retiredSigningKeys = new Map<string, number>();

  /** Used jtis of client assertions and DPoP proofs, per client, until their exp (not durable, as used nonces are not). */
  private readonly usedTokenIds: NonceSet;

  get count(): number {
    return this.clients.size;
  }

  constructor(private readonly context: MemoryContext) {
    this.usedTokenIds = new NonceSet(context.now);
  }

  restore(snapshot: Snapshot): void {
    for (const [id, c] of Object.entries(snapshot.clients ?? {})) this.clients.set(id, frozenClient(c));
    for (const [k, v] of Object.entries(snapshot.revoked ?? {})) this.revoked.set(k, v);
    for (const [k, v] of Object.entries(snapshot.retiredSigningKeys ?? {})) this.retiredSigningKeys.set(k, v);
    for (const [k, v] of Object.entries(snapshot.clientUses ?? {})) this.lastUses.set(k, v);
  }

  snapshot(): Pick<Snapshot, 'clients' | 'revoked' | 'retiredSigningKeys' | 'clientUses'> {
    return {
      clients: Object.fromEntries(this.clients),
      revoked: Object.fromEntries(this.revoked),
      retiredSigningKeys: Object.fromEntries(this.retiredSigningKeys),
      clientUses: Object.fromEntries(this.lastUses),
    };
  }

  /** Drops the marks that have lapsed. */
  sweep(): void {
    const nowSeconds = this.context.now() / 1000;
    for (const [jti, exp] of this.revoked) if (exp < nowSeconds) this.revoked.delete(jti);
    for (const [kid, until] of this.retiredSigningKeys) if (until <= nowSeconds) this.retiredSigningKeys.delete(kid);
    this.usedTokenIds.sweep();
  }

  async createClient(client: ClientRecord): Promise<boolean> {
    if (this.clients.has(client.clientId)) return false;
    this.clients.set(client.clientId, frozenClient(structuredClone(client)));
    this.context.persist();
    return true;
  }

  async getClient(clientId: string): Promise<ClientRecord | null> {
    return this.clients.get(clientId) ?? null;
  }

  async listClients(page: PageRequest): Promise<Page<ClientRecord>> {
    const positions = positionsAfter(
      Array.from(this.clients.values(), (c) => positionOf(c.clientId, c.createdAt)),
      page,
    );
    return pageOf(
      positions,
      positions.slice(0, page.limit).map(({ id }) => structuredClone(this.clients.get(id)!)),
      page.limit,
    );
  }

  async deleteClient(clientId: string): Promise<boolean> {
    const deleted = this.clients.delete(clientId);
    this.lastUses.delete(clientId);
    if (deleted) this.context.persist();
    return deleted;
  }

  async rollClientSecret(clientId: string, secretHash: string, graceSeconds: number): Promise<ClientRecord | null> {
    const client = this.clients.get(clientId);
    if (!client) return null;
    const rolled = frozenClient(structuredClone(rolledClient(client, secretHash, graceSeconds, this.context.now())));
    this.clients.set(clientId, rolled);
    this.context.persist();
    return structuredClone(rolled);
  }

  async updateClient(clientId: string, change: (client: ClientRecord) => ClientChange): Promise<ClientRecord | null> {
    const client = this.clients.get(clientId);
    if (!client) return null;
    const updated = frozenClient(structuredClone({ ...client, ...change(structuredClone(client)) }));
    this.clients.set(clientId, updated);
    this.context.persist();
    return structuredClone(updated);
  }

  async revokeToken(_clientId: string, jti: string, expiresAtSeconds: number): Promise<void> {
    this.revoked.set(jti, expiresAtSeconds + 60);
    this.context.persist();
  }

  async consumeTokenId(clientId: string, use: OneTimeJwt, jti: string, expiresAtSeconds: number): Promise<boolean> {
    // Kept past exp for clock skew, as the Redis store keeps it.
    const ttlMs = Math.max(expiresAtSeconds + 60 - this.context.now() / 1000, 60) * 1000;
    return this.usedTokenIds.addIfAbsent(clientId, `${use}:${jti}`, ttlMs);
  }

  async bearerState(clientId: string, jti: string, kid: string): Promise<BearerState> {
    const client = this.clients.get(clientId);
    const nowSeconds = this.context.now() / 1000;
    const exp = this.revoked.get(jti);
    const keyRetiredUntil = this.retiredSigningKeys.get(kid);
    // Stored frozen: handed out as is on the hot path, without a copy per request.
    return {
      client: client ?? null,
      revoked: exp !== undefined && exp >= nowSeconds,
      signingKeyRetired: keyRetiredUntil !== undefined && keyRetiredUntil > nowSeconds,
    };
  }

  async retireSigningKey(kid: string, untilSeconds: number): Promise<void> {
    this.retiredSigningKeys.set(kid, untilSeconds);
    this.context.persist();
  }

  async recordClientUse(uses: readonly ClientUse[]): Promise<void> {
    let changed = false;
    for (const { clientId, at } of uses) {
      if (!this.clients.has(clientId) || (this.lastUses.get(clientId) ?? '') >= at) continue;
      this.lastUses.set(clientId, at);
      changed = true;
    }
    if (changed) this.context.persist();
  }

  async clientLastUses(clientIds: readonly string[]): Promise<(string | null)[]> {
    return clientIds.map((id) => this.lastUses.get(id) ?? null);
  }
}
