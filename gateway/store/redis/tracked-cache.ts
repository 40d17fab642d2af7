// What the Bearer path reads of Redis (client records, revocation marks, retired-key marks) and the
// token endpoint (client records, failure counters), kept in memory and told of every change by
// Redis itself (invalidation-channel.ts, one channel per master), so that most requests read
// nothing. Used only while every channel is proven current within the lease; a change is then
// refused by every instance at most a lease after Redis answered it, and a change made here waits
// out the lease before it is answered (waitOutLease), so that "refused everywhere once the call
// returns" holds. Every entry is also dropped after a fixed age, and everything on a reset (a
// reconnection, a failover, a change of Cluster masters).
//
// A read races with invalidations: a value read before a write may arrive after the write's
// invalidation. So each key being read counts the invalidations that come meanwhile, and a value is
// kept only when none came (and no reset) between the read's start and its end.
import { setTimeout as sleep } from 'node:timers/promises';
import { Cluster, type Redis } from 'ioredis';
import type { RedisClient } from '../redis-connection.js';
import { InvalidationChannel } from './invalidation-channel.js';

/** A safety net for an invalidation lost in a way no check sees: the entry is read again at this age. */
const MAX_ENTRY_AGE_MS = 30_000;
/** Bounds the memory: past it, the oldest tenth goes. */
const MAX_ENTRIES = 100_000;
const HEARTBEATS_PER_LEASE = 4;

interface Entry {
  value: unknown;
  at: number;
}

/** Keys with reads in flight: how many, and the invalidations that came for each since the first began. */
interface Reading {
  readers: number;
  invalidations: number;
}

export interface ReadTicket {
  readonly keys: readonly string[];
  readonly resets: number;
  readonly invalidations: readonly number[];
}

export class TrackedCache {
  private readonly entries = new Map<string, Entry>();
  private readonly reading = new Map<string, Reading>();
  private resets = 0;
  /** By master address ("host:port"); one entry, "", for a single server or Sentinel's master. */
  private readonly channels = new Map<string, InvalidationChannel>();
  private readonly heartbeatMs: number;
  private readonly topologyTimer: NodeJS.Timeout | undefined;

  /** @param prefixes the key prefixes whose writes Redis reports (the cached keys must fall under them). */
  constructor(
    private readonly redis: RedisClient,
    private readonly prefixes: readonly string[],
    readonly leaseMs: number,
  ) {
    this.heartbeatMs = Math.max(1, Math.floor(leaseMs / HEARTBEATS_PER_LEASE));
    if (redis instanceof Cluster) {
      this.topologyTimer = setInterval(() => this.followMasters(redis), this.heartbeatMs);
      this.topologyTimer.unref();
      this.followMasters(redis);
    } else {
      this.open('', redis.duplicate({ lazyConnect: true, autoResubscribe: false }));
    }
  }

  private open(address: string, connection: Redis): void {
    this.channels.set(
      address,
      new InvalidationChannel(connection, this.prefixes, this.heartbeatMs, {
        onInvalidate: (keys) => this.invalidate(keys),
        onReset: () => this.reset(),
      }),
    );
  }

  /** A channel for each master the Cluster client knows now; a change of masters is a reset. */
  private followMasters(cluster: Cluster): void {
    const masters = new Map<string, Redis>(cluster.nodes('master').map((node) => [`${node.options.host}:${node.options.port}`, node]));
    let changed = false;
    for (const [address, channel] of this.channels) {
      if (masters.has(address)) continue;
      channel.close();
      this.channels.delete(address);
      changed = true;
    }
    for (const [address, node] of masters) {
      if (this.channels.has(address)) continue;
      this.open(address, node.duplicate({ lazyConnect: true, autoResubscribe: false, readOnly: false }));
      changed = true;
    }
    if (changed) this.reset();
  }

  /** performance.now() as of which every channel is proven current (all invalidations before it are in); undefined when one is not set up. */
  currentAsOf(): number | undefined {
    let oldest: number | undefined;
    for (const channel of this.channels.values()) {
      if (channel.currentAsOf === undefined) return undefined;
      oldest = oldest === undefined ? channel.currentAsOf : Math.min(oldest, channel.currentAsOf);
    }
    return oldest;
  }

  /** Every channel proven current within the lease (and there is one). */
  private usable(now: number): boolean {
    const asOf = this.currentAsOf();
    return asOf !== undefined && now - asOf <= this.leaseMs;
  }

  /** The values of every key, when each is cached and the cache is usable now; else undefined (read them). */
  lookup(keys: readonly string[]): unknown[] | undefined {
    const now = performance.now();
    if (!this.usable(now)) return undefined;
    const values: unknown[] = [];
    for (const key of keys) {
      const entry = this.entries.get(key);
      if (entry === undefined || now - entry.at > MAX_ENTRY_AGE_MS) return undefined;
      values.push(entry.value);
    }
    return values;
  }

  /**
   * The keys' values: from memory when every one is kept and the cache is usable, else from `read`,
   * whose values are kept unless a key changed meanwhile; an undefined value is returned but not kept.
   */
  async readThrough(keys: readonly string[], read: () => Promise<readonly unknown[]>): Promise<readonly unknown[]> {
    const hit = this.lookup(keys);
    if (hit !== undefined) return hit;
    const ticket = this.startRead(keys);
    let values: readonly unknown[] = [];
    try {
      values = await read();
      return values;
    } finally {
      this.finishRead(ticket, values);
    }
  }

  /** Keys this instance just wrote: dropped here at once, without waiting for Redis's report of the write. */
  forget(keys: readonly string[]): void {
    this.invalidate(keys);
  }

  /** Before the keys are read from Redis. Every ticket must be finished (finishRead), also when the read fails. */
  startRead(keys: readonly string[]): ReadTicket {
    const invalidations = keys.map((key) => {
      let reading = this.reading.get(key);
      if (reading === undefined) this.reading.set(key, (reading = { readers: 0, invalidations: 0 }));
      reading.readers++;
      return reading.invalidations;
    });
    return { keys, resets: this.resets, invalidations };
  }

  /** After the read: values[i] is kept unless it is undefined (not to be kept) or the key changed meanwhile. */
  finishRead(ticket: ReadTicket, values: readonly unknown[]): void {
    const now = performance.now();
    ticket.keys.forEach((key, i) => {
      const reading = this.reading.get(key)!;
      if (ticket.resets === this.resets && reading.invalidations === ticket.invalidations[i] && values[i] !== undefined) this.keep(key, values[i], now);
      if (--reading.readers === 0) this.reading.delete(key);
    });
  }

  private keep(key: string, value: unknown, now: number): void {
    if (this.entries.size >= MAX_ENTRIES) {
      let drop = MAX_ENTRIES / 10;
      for (const oldest of this.entries.keys()) {
        this.entries.delete(oldest);
        if (--drop === 0) break;
      }
    }
    this.entries.set(key, { value, at: now });
  }

  private invalidate(keys: readonly string[] | null): void {
    if (keys === null) return this.reset();
    for (const key of keys) {
      this.entries.delete(key);
      const reading = this.reading.get(key);
      if (reading !== undefined) reading.invalidations++;
    }
  }

  private reset(): void {
    this.resets++;
    this.entries.clear();
  }

  /** After a change was answered by Redis: from then on, no instance serves what it replaced from its cache. */
  waitOutLease(): Promise<void> {
    return sleep(this.leaseMs);
  }

  close(): void {
    if (this.topologyTimer) clearInterval(this.topologyTimer);
    for (const channel of this.channels.values()) channel.close();
    this.channels.clear();
    this.reset();
  }
}
