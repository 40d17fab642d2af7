// A Redis master with one replica of the test's own, the replica replicating through a link the
// test holds (replication-link.ts), and clients reaching the master through a proxy of their own
// that a failover moves to the promoted replica: a failover without Sentinel or Cluster, fast
// enough for store-level tests. Every process is stopped in the test's teardown.
import type { Test } from 'tap';
import { startRedisServer, type OwnRedis } from './redis-server.js';
import { startReplicationLink, type ReplicationLink } from './replication-link.js';
import { until } from './poll.js';

export interface ReplicatedRedis {
  master: OwnRedis;
  replica: OwnRedis;
  /** The replica's link to the master. */
  link: ReplicationLink;
  /** What clients connect to: the master, or after failover() the promoted replica. */
  url: string;
  /** Waits until the replica holds everything the master took. */
  inSync(): Promise<void>;
  /** Kills the master (what the link held is lost), promotes the replica and moves the clients' address to it. */
  failover(): Promise<void>;
}

const SERVER_ARGS = ['--appendonly', 'no', '--save', ''];

/** `field:value` of an INFO section. */
export async function infoField(server: OwnRedis, section: string, field: string): Promise<string | undefined> {
  const text = String(await server.command('INFO', section));
  return new RegExp(`^${field}:(.*)\\r?$`, 'm').exec(text)?.[1]?.trim();
}

export async function startReplicatedRedis(t: Test): Promise<ReplicatedRedis> {
  const master = await startRedisServer(t, { args: SERVER_ARGS });
  const link = await startReplicationLink(t, master.port);
  const replica = await startRedisServer(t, { args: [...SERVER_ARGS, '--replicaof', '127.0.0.1', String(link.port)] });
  const clients = await startReplicationLink(t, master.port);
  const inSync = async () => {
    await until(
      async () => {
        const [sent, received, status] = await Promise.all([
          infoField(master, 'replication', 'master_repl_offset'),
          infoField(replica, 'replication', 'slave_repl_offset'),
          infoField(replica, 'replication', 'master_link_status'),
        ]);
        return status === 'up' && sent !== undefined && sent === received;
      },
      'the replica holds what the master took',
      10_000,
    );
  };
  await inSync();
  return {
    master,
    replica,
    link,
    url: `redis://127.0.0.1:${clients.port}`,
    inSync,
    failover: async () => {
      await master.stop();
      await replica.command('REPLICAOF', 'NO', 'ONE');
      clients.retarget(replica.port);
    },
  };
}
