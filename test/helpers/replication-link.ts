// A TCP proxy in front of a Redis server, for the replication link of a replica held behind its
// master. hold() stops passing the master's bytes to every replica connected through it (a
// connection that sent REPLCONF) while the connection stays open: the replica stays "connected",
// as one 200 ms behind is, so the master goes on accepting writes the replica does not have.
// Clients and sentinels connected through the same proxy pass untouched. When the master's side
// closes (its host dying), what was held is dropped with the connection: lost, as on a real host.
// retarget() sends new connections to another server (a virtual address moving to a promoted replica).
import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';

export interface ReplicationLink {
  readonly port: number;
  /** Stops passing the master's stream to the replicas (connections stay open). */
  hold(): void;
  /** Passes what was held, and everything after it. */
  release(): void;
  /** Bytes held back from the replicas right now. */
  heldBytes(): number;
  /** New connections go to this port from now on; open ones are closed. */
  retarget(port: number): void;
}

interface Pair {
  client: Socket;
  server: Socket;
  replication: boolean;
  held: Buffer[];
}

export async function startReplicationLink(t: Test, targetPort: number): Promise<ReplicationLink> {
  let target = targetPort;
  let holding = false;
  const pairs = new Set<Pair>();
  const proxy = createServer((client) => {
    const pair: Pair = { client, server: connect(target, '127.0.0.1'), replication: false, held: [] };
    pairs.add(pair);
    const drop = () => {
      pair.held = [];
      client.destroy();
      pair.server.destroy();
      pairs.delete(pair);
    };
    client.on('data', (chunk: Buffer) => {
      // A replica announces itself with REPLCONF (listening-port, capa) before PSYNC.
      if (!pair.replication && chunk.includes('REPLCONF')) pair.replication = true;
      pair.server.write(chunk);
    });
    pair.server.on('data', (chunk: Buffer) => {
      if (holding && pair.replication) pair.held.push(chunk);
      else client.write(chunk);
    });
    client.on('error', drop).on('close', drop);
    pair.server.on('error', drop).on('close', drop);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        for (const pair of pairs) {
          pair.client.destroy();
          pair.server.destroy();
        }
        proxy.close(() => resolve());
      }),
  );
  return {
    port: (proxy.address() as AddressInfo).port,
    hold: () => {
      holding = true;
    },
    release: () => {
      holding = false;
      for (const pair of pairs) for (const chunk of pair.held.splice(0)) pair.client.write(chunk);
    },
    heldBytes: () => [...pairs].reduce((sum, pair) => sum + pair.held.reduce((n, chunk) => n + chunk.length, 0), 0),
    retarget: (port) => {
      target = port;
      for (const pair of pairs) {
        pair.client.destroy();
        pair.server.destroy();
      }
      pairs.clear();
    },
  };
}
