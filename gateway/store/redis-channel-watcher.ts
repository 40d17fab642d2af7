// Change notifications over Redis pub/sub, on one dedicated connection (a connection in subscriber
// mode can run nothing else). Pub/sub is fire-and-forget: a message published while this connection
// is down is lost. So every subscription, first or after a reconnection, is followed by a call to
// the channel's watchers, which re-read the value: they never depend on a message alone.
// A connection that gives up for good (on a Cluster, the node it used went away) is replaced by a
// new one from `open`, which may pick another node.
import type { Redis } from 'ioredis';

export class RedisChannelWatcher {
  private connection: Redis | undefined;
  private reopening: NodeJS.Timeout | undefined;
  private readonly watchers = new Map<string, Set<() => void>>();

  /** @param open makes the (not yet connected) subscriber connection, when the first watch begins. */
  constructor(private readonly open: () => Redis) {}

  /** Calls onChange on each message on the channel and after each (re)subscription; returns the stop function. */
  watch(channel: string, onChange: () => void): () => void {
    const watchers = this.watchers.get(channel) ?? new Set();
    this.watchers.set(channel, watchers.add(onChange));
    if (!this.connection) this.connect();
    // Subscribing again is harmless, and its answer tells the new watcher that it is now listening.
    else if (this.connection.status === 'ready') void this.subscribe([channel]);
    return () => {
      watchers.delete(onChange);
      if (watchers.size > 0 || this.watchers.get(channel) !== watchers) return;
      this.watchers.delete(channel);
      if (this.watchers.size === 0) this.close();
      else this.connection?.unsubscribe(channel).catch(() => {});
    };
  }

  /**
   * Tells every watcher to re-read. For the owner's command connection coming back: a re-read that
   * failed while it was down (after this connection's own resubscription) may have missed a change.
   */
  notifyAll(): void {
    for (const channel of [...this.watchers.keys()]) this.notify(channel);
  }

  /** Drops every watch and the connection (no open handle stays behind). */
  close(): void {
    this.watchers.clear();
    clearTimeout(this.reopening);
    this.connection?.disconnect();
    this.connection = undefined;
  }

  private connect(): void {
    const connection = this.open();
    this.connection = connection;
    // An outage is not an error to report here: ioredis reconnects in the background, and 'ready'
    // subscribes again. The listener also keeps an 'error' event from crashing the process.
    connection.on('error', () => {});
    connection.on('ready', () => void this.subscribe([...this.watchers.keys()]));
    connection.on('message', (channel: string) => this.notify(channel));
    connection.on('end', () => {
      if (connection !== this.connection) return;
      this.connection = undefined;
      if (this.watchers.size === 0) return;
      // Not at once: the next node may be down too.
      this.reopening = setTimeout(() => {
        if (!this.connection && this.watchers.size > 0) this.connect();
      }, 200);
      this.reopening.unref();
    });
    connection.connect().catch(() => {});
  }

  private async subscribe(channels: string[]): Promise<void> {
    const connection = this.connection;
    if (!connection || channels.length === 0) return;
    try {
      await connection.subscribe(...channels);
    } catch {
      // Refused or timed out on a live connection: reconnect, and 'ready' tries again.
      if (connection === this.connection && connection.status === 'ready') connection.disconnect(true);
      return;
    }
    if (connection === this.connection) for (const channel of channels) this.notify(channel);
  }

  private notify(channel: string): void {
    for (const onChange of [...(this.watchers.get(channel) ?? [])]) onChange();
  }
}
