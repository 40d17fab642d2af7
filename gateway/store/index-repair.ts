// Reconciles the list indexes and the service accounts' id pointers with the records, so that every
// record that can verify is listed and found by its id, whatever a failover or a write answered 503
// left behind. Run by `gatewayctl store repair` (POST /admin/v1/store/repair) and once at start.
//
//   1. Every record, found by SCAN on every master (bounded batches: Redis is never blocked), gets
//      its index entry and its pointer back if they are missing.
//   2. Every index entry and pointer is checked against its record (and an entry scored 0, written
//      by a version that listed by id, gets its record's creation time). One without a record may be a
//      create in flight (its index entry is written first, listed-create.ts), so it is looked at
//      again after `settleMs`; then, in the record's own slot and only while the record is still
//      absent, the create is voided (`<key>:void`, kept 7 days) before the entry goes: a create
//      answered 503 that reaches Redis later finds the void mark and writes nothing.
//   3. The old id map (`index:sa-ids`) of accounts created before the pointers gives them a
//      pointer; its entries without a record go.
//
// Every step is idempotent and re-checks what it depends on, so several instances may repair at
// once, and requests go on meanwhile.
import { setTimeout as sleep } from 'node:timers/promises';
import { accessIdsOf } from './account-pointers.js';
import { DELETE_IF_EQUALS } from './listed-create.js';
import { positionOf, type ListPosition } from './page-cursor.js';
import { scanTargets, type RedisClient } from './redis-connection.js';
import { globEscape, type RedisKeys } from './redis-keys.js';
import type { RepairOptions, RepairReport } from './types.js';

const DEFAULT_SETTLE_MS = 2000;
const DEFAULT_BATCH = 500;
/** Keys one SCAN step examines: its cost in Redis follows the whole keyspace of the database, not
 * the prefix's share of it, so it is not tied to the (possibly small) batch of records handled. */
const SCAN_COUNT = 1000;
/** Records without an entry awaiting their second look, at most (then they are looked at at once). */
const MAX_PENDING = 10_000;
/** Far longer than any write can wait in a socket buffer before it reaches Redis. */
const VOID_TTL_SECONDS = 7 * 24 * 3600;

// KEYS: a key that must be absent, the void mark beside it (same slot). ARGV: the mark's lifetime.
// 1: voided (the key was absent); 0: the key exists after all, nothing written.
const VOID_IF_ABSENT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('SET', KEYS[2], '1', 'EX', tonumber(ARGV[1]))
return 1`;

const CLIENT_RECORD = /^client:\{([^{}]+)\}$/;
const ACCOUNT_RECORD = /^sa:\{([^{}]+)\}$/;
const ACCOUNT_POINTER = /^sa-id:\{([^{}]+)\}$/;

function emptyReport(): RepairReport {
  return {
    clients: { records: 0, listed: 0, indexAdded: 0, indexRemoved: 0 },
    serviceAccounts: { records: 0, listed: 0, indexAdded: 0, indexRemoved: 0, pointersAdded: 0, pointersRemoved: 0 },
    nodesScanned: 0,
    durationMs: 0,
  };
}

class IndexRepair {
  readonly report = emptyReport();
  /** Ids whose index entry or pointer had no record, for a second look. */
  private readonly pendingClients = new Set<string>();
  private readonly pendingAccounts = new Set<string>();
  private readonly settleMs: number;
  private readonly batch: number;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    options: RepairOptions,
    private readonly stopped: () => boolean,
  ) {
    this.settleMs = options.settleMs ?? DEFAULT_SETTLE_MS;
    this.batch = options.batchSize ?? DEFAULT_BATCH;
  }

  async run(): Promise<RepairReport> {
    const started = Date.now();
    await this.scanRecords();
    await this.checkIndex(this.keys.clientIndex, (ids) => this.checkClientEntries(ids));
    await this.checkIndex(this.keys.accountIndex, (ids) => this.checkAccountEntries(ids));
    await this.checkLegacyIdMap();
    await this.settle();
    this.report.durationMs = Date.now() - started;
    return this.report;
  }

  private checkStopped(): void {
    if (this.stopped()) throw new Error('the index repair stopped: the store was closed');
  }

  /** Step 1, and the pointers that step 2 checks: one SCAN over each master, a batch at a time. */
  private async scanRecords(): Promise<void> {
    const nodes = scanTargets(this.redis);
    this.report.nodesScanned = nodes.length;
    const pattern = `${globEscape(this.keys.prefix)}*`;
    for (const node of nodes) {
      let cursor = '0';
      do {
        this.checkStopped();
        const [next, found] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', SCAN_COUNT);
        cursor = next;
        for (let start = 0; start < found.length; start += this.batch) await this.handleKeys(found.slice(start, start + this.batch));
      } while (cursor !== '0');
    }
  }

  private async handleKeys(keys: readonly string[]): Promise<void> {
    const clients: string[] = [];
    const accounts: string[] = [];
    const pointers: string[] = [];
    for (const key of keys) {
      const rest = key.slice(this.keys.prefix.length);
      let match: RegExpExecArray | null;
      if ((match = CLIENT_RECORD.exec(rest))) clients.push(match[1]!);
      else if ((match = ACCOUNT_RECORD.exec(rest))) accounts.push(match[1]!);
      else if ((match = ACCOUNT_POINTER.exec(rest))) pointers.push(match[1]!);
    }
    await Promise.all([this.listClients(clients), this.listAccounts(accounts), this.checkPointers(pointers)]);
    await this.settleIfFull();
  }

  /** Adds an index entry for a record that has none; taken back if the record was deleted meanwhile. */
  private async addEntry(index: string, { id, createdMs }: ListPosition, recordKey: string): Promise<boolean> {
    if ((await this.redis.zadd(index, createdMs, id)) === 0) return false;
    if ((await this.redis.exists(recordKey)) === 1) return true;
    await this.redis.zrem(index, id);
    return false;
  }

  private async listClients(clientIds: string[]): Promise<void> {
    this.report.clients.records += clientIds.length;
    const scores = await Promise.all(clientIds.map((id) => this.redis.zscore(this.keys.clientIndex, id)));
    const added = await Promise.all(
      clientIds
        .filter((_id, i) => scores[i] === null)
        .map(async (id) => {
          const position = positionIn(id, await this.redis.get(this.keys.client(id)));
          return position !== undefined && this.addEntry(this.keys.clientIndex, position, this.keys.client(id));
        }),
    );
    this.report.clients.indexAdded += added.filter(Boolean).length;
  }

  private async listAccounts(accessIds: string[]): Promise<void> {
    const raws = await Promise.all(accessIds.map((accessId) => this.redis.get(this.keys.account(accessId))));
    await Promise.all(
      accessIds.map(async (accessId, i) => {
        const position = positionIn(undefined, raws[i] ?? null);
        if (position === undefined) return;
        const { id } = position;
        this.report.serviceAccounts.records++;
        const recordKey = this.keys.account(accessId);
        const pointer = this.keys.accountPointer(id);
        if ((await this.redis.set(pointer, accessId, 'NX')) === 'OK') {
          if ((await this.redis.exists(recordKey)) === 1) this.report.serviceAccounts.pointersAdded++;
          else await this.redis.eval(DELETE_IF_EQUALS, 1, pointer, accessId);
        }
        if ((await this.redis.zscore(this.keys.accountIndex, id)) === null && (await this.addEntry(this.keys.accountIndex, position, recordKey)))
          this.report.serviceAccounts.indexAdded++;
      }),
    );
  }

  /** Pointers whose record is gone (a delete or a create cut short), found by the SCAN. */
  private async checkPointers(ids: string[]): Promise<void> {
    const accessIds = await Promise.all(ids.map((id) => this.redis.get(this.keys.accountPointer(id))));
    const exists = await Promise.all(accessIds.map((accessId) => (accessId === null ? Promise.resolve(1) : this.redis.exists(this.keys.account(accessId)))));
    ids.forEach((id, i) => exists[i] === 0 && this.pendingAccounts.add(id));
  }

  /**
   * Step 2: the index read by ZSCAN (which tolerates entries removed meanwhile, and may repeat one:
   * every check is idempotent), a batch of entries at a time, each batch handed to check.
   */
  private async checkIndex(index: string, check: (entries: ListPosition[]) => Promise<void>): Promise<void> {
    let cursor = '0';
    do {
      this.checkStopped();
      const [next, flat] = await this.redis.zscan(index, cursor, 'COUNT', this.batch);
      cursor = next;
      const entries: ListPosition[] = [];
      for (let i = 0; i + 1 < flat.length; i += 2) entries.push({ id: flat[i]!, createdMs: Number(flat[i + 1]) });
      if (entries.length > 0) await check(entries);
      await this.settleIfFull();
    } while (cursor !== '0');
  }

  /** An entry with no record waits for the second look; one scored 0 gets its record's creation time. */
  private async checkEntry(index: string, entry: ListPosition, recordKey: string | null, pending: Set<string>): Promise<void> {
    if (entry.createdMs !== 0) {
      if (recordKey === null || (await this.redis.exists(recordKey)) === 0) pending.add(entry.id);
      return;
    }
    const position = positionIn(entry.id, recordKey === null ? null : await this.redis.get(recordKey));
    if (position === undefined) pending.add(entry.id);
    else if (position.createdMs !== 0) await this.redis.zadd(index, 'XX', position.createdMs, entry.id);
  }

  private async checkClientEntries(entries: ListPosition[]): Promise<void> {
    this.report.clients.listed += entries.length;
    const index = this.keys.clientIndex;
    await Promise.all(entries.map((entry) => this.checkEntry(index, entry, this.keys.client(entry.id), this.pendingClients)));
  }

  private async checkAccountEntries(entries: ListPosition[]): Promise<void> {
    this.report.serviceAccounts.listed += entries.length;
    const accessIds = await accessIdsOf(
      this.redis,
      this.keys,
      entries.map(({ id }) => id),
    );
    const index = this.keys.accountIndex;
    await Promise.all(entries.map((entry, i) => this.checkEntry(index, entry, accessIds[i] ? this.keys.account(accessIds[i]) : null, this.pendingAccounts)));
  }

  /** Step 3: the old id map, a batch at a time. */
  private async checkLegacyIdMap(): Promise<void> {
    let cursor = '0';
    do {
      this.checkStopped();
      const [next, flat] = await this.redis.hscan(this.keys.accessIdsById, cursor, 'COUNT', this.batch);
      cursor = next;
      const entries: [string, string][] = [];
      for (let i = 0; i + 1 < flat.length; i += 2) entries.push([flat[i]!, flat[i + 1]!]);
      await Promise.all(
        entries.map(async ([id, accessId]) => {
          if ((await this.redis.exists(this.keys.account(accessId))) === 0) {
            // Written after the record by older versions: an entry without one is a finished delete.
            if ((await this.redis.hdel(this.keys.accessIdsById, id)) === 1) this.report.serviceAccounts.pointersRemoved++;
          } else if ((await this.redis.set(this.keys.accountPointer(id), accessId, 'NX')) === 'OK') {
            this.report.serviceAccounts.pointersAdded++;
          }
        }),
      );
    } while (cursor !== '0');
  }

  private async settleIfFull(): Promise<void> {
    if (this.pendingClients.size + this.pendingAccounts.size >= MAX_PENDING) await this.settle();
  }

  /** The second look: what still has no record after settleMs is voided in the record's slot, then removed. */
  private async settle(): Promise<void> {
    if (this.pendingClients.size + this.pendingAccounts.size === 0) return;
    await sleep(this.settleMs, undefined, { ref: false });
    this.checkStopped();
    const clients = [...this.pendingClients];
    const accounts = [...this.pendingAccounts];
    this.pendingClients.clear();
    this.pendingAccounts.clear();
    await Promise.all(clients.map((id) => this.dropClientEntry(id)));
    const accessIds = await accessIdsOf(this.redis, this.keys, accounts);
    await Promise.all(accounts.map((id, i) => this.dropAccountEntry(id, accessIds[i] ?? null)));
  }

  private async voidIfAbsent(key: string, voidKey: string): Promise<boolean> {
    return (await this.redis.eval(VOID_IF_ABSENT, 2, key, voidKey, VOID_TTL_SECONDS)) === 1;
  }

  private async dropClientEntry(id: string): Promise<void> {
    if (!(await this.voidIfAbsent(this.keys.client(id), this.keys.clientVoid(id)))) return;
    // Read the count after the await: `x += await y` would add to a value read before it (lost updates).
    const removed = await this.redis.zrem(this.keys.clientIndex, id);
    this.report.clients.indexRemoved += removed;
  }

  private async dropAccountEntry(id: string, accessId: string | null): Promise<void> {
    const { serviceAccounts: counts } = this.report;
    if (accessId === null) {
      // Nothing says which record: void the id, so that no create can claim it late.
      if (!(await this.voidIfAbsent(this.keys.accountPointer(id), this.keys.accountPointerVoid(id)))) return;
    } else {
      if (!(await this.voidIfAbsent(this.keys.account(accessId), this.keys.accountVoid(accessId)))) return;
      const pointers = Number(await this.redis.eval(DELETE_IF_EQUALS, 1, this.keys.accountPointer(id), accessId));
      counts.pointersRemoved += pointers;
      await this.redis.hdel(this.keys.accessIdsById, id);
    }
    const removed = await this.redis.zrem(this.keys.accountIndex, id);
    counts.indexRemoved += removed;
  }
}

/**
 * Where a stored record stands in its list: its id (a service account's from the record itself,
 * a client's as given) and creation time. Undefined for no record, or one that does not parse.
 */
function positionIn(id: string | undefined, raw: string | null): ListPosition | undefined {
  if (raw === null) return undefined;
  try {
    const record = JSON.parse(raw) as { id?: unknown; createdAt?: unknown };
    const listed = id ?? record.id;
    return typeof listed === 'string' && listed !== '' ? positionOf(listed, typeof record.createdAt === 'string' ? record.createdAt : '') : undefined;
  } catch {
    return undefined;
  }
}

/** Runs one repair over the store's keys; `stopped` is checked between batches (the store closed). */
export function repairIndexes(redis: RedisClient, keys: RedisKeys, options: RepairOptions = {}, stopped: () => boolean = () => false): Promise<RepairReport> {
  return new IndexRepair(redis, keys, options, stopped).run();
}
