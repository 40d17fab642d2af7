// A Redis Cluster of three masters, each with one replica, that fails over by itself: a master that
// stops answering for cluster-node-timeout is marked failed and its replica promoted. Configured as
// the README asks (cluster-require-full-coverage no), so the other masters keep serving meanwhile.
// Every process is stopped in the test's teardown (a paused one is killed).
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Test } from 'tap';
import type { RedisNode } from '../../gateway/config/redis-settings.js';
import { keySlot } from '../../gateway/store/cluster-slot.js';
import { command, DATA_NODE, startServer, tempDir, uniquePort, waitFor, type RedisServer } from './redis-topology.js';

const run = promisify(execFile);

export interface ReplicatedCluster {
  /** Every node, as seeds: the gateway finds the cluster whichever master is lost. */
  readonly nodes: RedisNode[];
  readonly servers: RedisServer[];
  /** The master of each slot and its replicas, as a node that answers sees them. */
  slotMap(): Promise<Map<number, { master: number; replicas: number[] }>>;
  /** The port of the master holding the key now. */
  masterOf(key: string): Promise<number>;
  /** SIGSTOP: the master keeps its connections but answers nothing, as a hung host. */
  pause(port: number): void;
  /** SIGCONT: a paused server answers again (a failed-over master then rejoins as a replica). */
  resume(port: number): void;
  /** SIGKILL: the host is gone. */
  kill(port: number): Promise<void>;
  /** Until the replicas of this master hold everything it took. */
  replicasInSync(masterPort: number): Promise<void>;
}

const paused = new Set<number>();

async function replicationField(port: number, field: string): Promise<string | undefined> {
  return new RegExp(`^${field}:(.*)\\r?$`, 'm').exec(String(await command(port, 'INFO', 'replication')))?.[1]?.trim();
}

export async function startReplicatedCluster(t: Test, options: { nodeTimeoutMs: number }): Promise<ReplicatedCluster> {
  const dir = tempDir(t, 'replicated');
  const servers: RedisServer[] = [];
  for (let i = 0; i < 6; i++) {
    const bus = await uniquePort();
    servers.push(
      await startServer(t, dir, `node-${i}`, [
        ...DATA_NODE,
        'cluster-enabled yes',
        `cluster-config-file ${join(dir, `nodes-${i}.conf`)}`,
        `cluster-port ${bus}`,
        `cluster-node-timeout ${options.nodeTimeoutMs}`,
        // What the gateway expects (README): a lost master stops only its own slots.
        'cluster-require-full-coverage no',
        // A replica may always take over, however long its master was away.
        'cluster-replica-validity-factor 0',
      ]),
    );
  }
  // A paused server must be killed: SIGTERM waits while it is stopped.
  t.teardown(() => servers.forEach((s) => paused.has(s.port) && s.child.kill('SIGKILL')));
  await run('redis-cli', ['--cluster', 'create', ...servers.map((s) => `127.0.0.1:${s.port}`), '--cluster-replicas', '1', '--cluster-yes'], {
    timeout: 30_000,
  });
  for (const server of servers) {
    await waitFor(`node ${server.port} sees the cluster ok`, async () => String(await command(server.port, 'CLUSTER', 'INFO')).includes('cluster_state:ok'));
  }
  const live = () => servers.find((s) => !paused.has(s.port) && s.child.exitCode === null && s.child.signalCode === null)!;
  const slotMap = async () => {
    const ranges = (await command(live().port, 'CLUSTER', 'SLOTS')) as [number, number, [string, number], ...[string, number][]][];
    const map = new Map<number, { master: number; replicas: number[] }>();
    for (const [start, end, master, ...replicas] of ranges)
      for (let slot = start; slot <= end; slot++) map.set(slot, { master: master[1], replicas: replicas.map((r) => r[1]) });
    return map;
  };
  const cluster: ReplicatedCluster = {
    nodes: servers.map((s) => ({ host: '127.0.0.1', port: s.port })),
    servers,
    slotMap,
    masterOf: async (key) => (await slotMap()).get(keySlot(key))!.master,
    pause(port) {
      paused.add(port);
      servers.find((s) => s.port === port)!.child.kill('SIGSTOP');
    },
    resume(port) {
      paused.delete(port);
      servers.find((s) => s.port === port)!.child.kill('SIGCONT');
    },
    async kill(port) {
      const server = servers.find((s) => s.port === port)!;
      const exited = new Promise((resolve) => server.child.once('exit', resolve));
      server.child.kill('SIGKILL');
      await exited;
    },
    async replicasInSync(masterPort) {
      const replicas = [...(await slotMap()).values()].find((s) => s.master === masterPort)!.replicas;
      for (const replica of replicas) {
        await waitFor(`replica ${replica} holds what ${masterPort} took`, async () => {
          const [sent, received, link] = await Promise.all([
            replicationField(masterPort, 'master_repl_offset'),
            replicationField(replica, 'slave_repl_offset'),
            replicationField(replica, 'master_link_status'),
          ]);
          return link === 'up' && sent !== undefined && sent === received;
        });
      }
    },
  };
  // Every replica attached and in sync before the test begins.
  const masters = new Set([...(await slotMap()).values()].map((s) => s.master));
  await waitFor('every master has its replica', async () => [...(await slotMap()).values()].every((s) => s.replicas.length === 1));
  for (const master of masters) await cluster.replicasInSync(master);
  return cluster;
}
