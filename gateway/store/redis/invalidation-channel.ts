// One master's invalidations: a connection of its own (a copy of the store's) on which Redis tracks
// the key prefixes of what the hot paths read (tracked-cache.ts) in broadcast mode (CLIENT TRACKING
// ... BCAST, redirected to the connection itself and read from its __redis__:invalidate channel),
// so that it is told of every write to such a key, by any client.
//
// Redis queues an invalidation before it answers the writer, but nothing confirms its delivery. So
// the channel says how current it is: a PING every heartbeat, whose answer comes after every
// invalidation of a write answered before the PING was sent (Redis queues broadcast invalidations
// before it flushes the replies of the same event-loop turn, and the writer's answer is one of those
// replies). `currentAsOf` is when the last answered PING was sent. Each (re)connection starts over:
// tracking set up again, everything cached so far dropped (onReset), current again only after a PING.
import type { Redis } from 'ioredis';

const INVALIDATE = '__redis__:invalidate';

export interface ChannelEvents {
  /** Keys written (or expired, or evicted) since; null: everything (FLUSHALL, FLUSHDB). */
  onInvalidate(keys: readonly string[] | null): void;
  /** The channel lost its connection or set it up again: invalidations may have been missed. */
  onReset(): void;
}

export class InvalidationChannel {
  /** performance.now() when the last answered PING was sent; undefined until one is, after each (re)connection. */
  currentAsOf: number | undefined;
  private pinging = false;
  /** Set up (tracking on, subscribed) on the current connection: only then does a PING prove anything. */
  private established = false;
  /** Counts (re)connections and closes: an answer that arrives for an earlier one is ignored. */
  private generation = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly connection: Redis,
    private readonly prefixes: readonly string[],
    heartbeatMs: number,
    private readonly events: ChannelEvents,
  ) {
    connection.on('error', () => {});
    connection.on('close', () => this.lost());
    connection.on('ready', () => void this.setUp());
    connection.on('messageBuffer', (channel: Buffer, keys: Buffer[] | null) => {
      if (channel.toString() === INVALIDATE) events.onInvalidate(keys === null ? null : keys.map((key) => key.toString()));
    });
    this.timer = setInterval(() => this.heartbeat(), heartbeatMs);
    this.timer.unref();
    if (connection.status === 'wait') connection.connect().catch(() => {});
    else if (connection.status === 'ready') void this.setUp();
  }

  private lost(): void {
    this.generation++;
    this.established = false;
    this.currentAsOf = undefined;
    this.events.onReset();
  }

  private async setUp(): Promise<void> {
    const generation = ++this.generation;
    this.established = false;
    this.currentAsOf = undefined;
    try {
      const id = String(await this.connection.client('ID'));
      const prefixes = this.prefixes.flatMap((prefix) => ['PREFIX', prefix]);
      await this.connection.client('TRACKING', 'ON', 'REDIRECT', id, 'BCAST', ...prefixes);
      await this.connection.subscribe(INVALIDATE);
    } catch {
      // The connection failed meanwhile: its next 'ready' sets it up again.
      return;
    }
    if (generation !== this.generation) return;
    this.established = true;
    // Whatever was cached while the channel was not set up may be stale.
    this.events.onReset();
  }

  private heartbeat(): void {
    if (this.pinging || !this.established) return;
    const generation = this.generation;
    const sentAt = performance.now();
    this.pinging = true;
    this.connection
      .ping()
      .then(() => {
        // A PING answered on a connection set up since is no proof for the new one.
        if (generation === this.generation) this.currentAsOf = sentAt;
      })
      .catch(() => {})
      .finally(() => (this.pinging = false));
  }

  close(): void {
    clearInterval(this.timer);
    this.generation++;
    this.established = false;
    this.currentAsOf = undefined;
    this.connection.disconnect();
  }
}
