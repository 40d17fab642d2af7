// The connections confirmed writes go through (replica-ack.ts). WAIT blocks the connection it is
// sent on until the replicas answer, and every command behind it waits too: on the store's own
// connection one change while a replica lags would hold every request for up to the WAIT timeout.
// So they get connections of their own:
//   - one Redis, or a master found through Sentinel: one more connection with the same settings,
//     which follows the master as the store's own does (reconnecting at once when a write needs it,
//     rather than after its back-off: an idle connection lost in a failover would otherwise fail
//     the first changes after it);
//   - a Cluster: one connection per master, to the master the store's own client names for the
//     key's slot now. (A second Cluster client keeps a slot map of its own, which goes stale while
//     it is idle, as admin changes leave it: after a failover it sends writes to a demoted master.)
import { Cluster, type Redis } from 'ioredis';
import { keySlot } from './cluster-slot.js';
import type { RedisClient } from './redis-connection.js';

export interface ConfirmingConnections {
  /** The connection to the master of the key's slot, as far as the store knows now. */
  forKey(key: string): Promise<RedisClient>;
  /** A write was sent to a master that no longer holds its slot (MOVED): learn the map again. */
  refresh(): Promise<void>;
  close(): void;
}

/** The store's own client, for writes that wait for nothing (no WAIT, so nothing blocks it). */
export function sharedConnection(client: RedisClient): ConfirmingConnections {
  return { forKey: async () => client, refresh: async () => {}, close: () => {} };
}

/** Connections of their own next to the store's client; `prepare` defines scripts on each new one. */
export function ownConnections(client: RedisClient, prepare: (connection: Redis) => void): ConfirmingConnections {
  return client instanceof Cluster ? new MasterConnections(client, prepare) : new DuplicateConnection(client, prepare);
}

class DuplicateConnection implements ConfirmingConnections {
  private readonly connection: Redis;

  constructor(client: Redis, prepare: (connection: Redis) => void) {
    // Commands wait for the connection (each within its own timeout): it connects on the first,
    // and a write sent while it reconnects goes to the master it reaches.
    this.connection = client.duplicate({ enableOfflineQueue: true });
    this.connection.on('error', () => {});
    prepare(this.connection);
  }

  async forKey(): Promise<RedisClient> {
    // Not waiting out the back-off between attempts: try at once (the timer's attempt then finds it connecting).
    if (this.connection.status === 'reconnecting') this.connection.connect().catch(() => {});
    return this.connection;
  }

  async refresh(): Promise<void> {}

  close(): void {
    this.connection.disconnect();
  }
}

class MasterConnections implements ConfirmingConnections {
  private readonly byNode = new Map<string, Redis>();

  constructor(
    private readonly cluster: Cluster,
    private readonly prepare: (connection: Redis) => void,
  ) {}

  async forKey(key: string): Promise<RedisClient> {
    const node = this.cluster.slots[keySlot(key)]?.[0];
    if (node === undefined) throw new Error('no master is known for the slot of the key');
    const open = this.byNode.get(node);
    if (open && open.status !== 'end') return open;
    // A copy of the store's own connection to that node: its address, credentials, TLS and timeout;
    // it connects on its first command and ends with the node (the next write opens another).
    const source = this.cluster.nodes('all').find((n) => `${n.options.host}:${n.options.port}` === node);
    if (!source) throw new Error(`no connection to ${node} to copy`);
    const connection = source.duplicate({ readOnly: false });
    connection.on('error', () => {});
    this.prepare(connection);
    this.byNode.set(node, connection);
    return connection;
  }

  refresh(): Promise<void> {
    return new Promise((resolve) => this.cluster.refreshSlotsCache(() => resolve()));
  }

  close(): void {
    for (const connection of this.byNode.values()) connection.disconnect();
    this.byNode.clear();
  }
}
