// Replicated Redis topologies of a test's own whose replication the test controls, for failovers
// that lose writes: a 3-master + 3-replica Cluster, and a master with one replica under three
// sentinels. Every master is reached (by clients, sentinels and its replica alike) through a link
// of replication-link.ts, announced as its address, so the test can hold each replica behind while
// the master keeps answering, kill the master (dropping what was held) and promote the replica, and
// restart the old master, which rejoins as a replica. Every process is stopped in the teardown (or
// when the test process is interrupted before it).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Cluster, Redis } from 'ioredis';
import type { Test } from 'tap';
import { freePort } from '../../bench/processes.js';
import type { RedisNode } from '../../gateway/config/redis-settings.js';
import { killOnInterrupt, removeOnInterrupt } from './interrupt-cleanup.js';
import { until } from './poll.js';
import { command, role } from './redis-topology.js';
import { startReplicationLink, type ReplicationLink } from './replication-link.js';

const run = promisify(execFile);

/** A redis-server on a fixed port and config file, which the test may kill and start again. */
export interface Node {
  readonly name: string;
  readonly port: number;
  /** Starts the server (again), with extra arguments (e.g. --replicaof) after its config file. */
  start(args?: string[]): Promise<void>;
  /** SIGKILL: the host dies; no shutdown, no goodbye to replicas. */
  kill(): Promise<void>;
}

const taken = new Set<number>();

async function port(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const candidate = await freePort();
    if (!taken.has(candidate)) {
      taken.add(candidate);
      return candidate;
    }
  }
  throw new Error('no unused free port in 50 attempts');
}

function node(t: Test, dir: string, name: string, nodePort: number, lines: string[], sentinel = false): Node {
  const conf = join(dir, `${name}.conf`);
  const log = join(dir, `${name}.log`);
  writeFileSync(conf, [`port ${nodePort}`, 'bind 127.0.0.1', `dir ${dir}`, `logfile ${log}`, 'protected-mode no', ...lines, ''].join('\n'));
  let child: ChildProcess | undefined;
  const kill = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill('SIGKILL');
    });
  };
  t.teardown(kill);
  return {
    name,
    port: nodePort,
    kill,
    start: async (args = []) => {
      const started = spawn('redis-server', sentinel ? [conf, '--sentinel', ...args] : [conf, ...args], { stdio: 'ignore', detached: false });
      killOnInterrupt(started);
      child = started;
      await until(
        async () => {
          if (started.exitCode !== null) throw new Error(`${name} exited with ${started.exitCode} (log: ${log})`);
          return (await command(nodePort, 'PING').catch(() => '')) === 'PONG';
        },
        `${name} answers on ${nodePort} (log: ${log})`,
        10_000,
      );
    },
  };
}

function tempDir(t: Test, label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `gateway-${label}-`));
  const forget = removeOnInterrupt(dir);
  t.teardown(() => {
    rmSync(dir, { recursive: true, force: true });
    forget();
  });
  return dir;
}

const DATA = ['save ""', 'appendonly no'];

async function replicationField(nodePort: number, field: string): Promise<string | undefined> {
  return new RegExp(`^${field}:(.*)\\r?$`, 'm').exec(String(await command(nodePort, 'INFO', 'replication')))?.[1]?.trim();
}

/** Until the replica holds everything its master took (both answer, the link is up, the offsets match). */
export async function inSync(masterPort: number, replicaPort: number, timeoutMs = 15_000): Promise<void> {
  await until(
    async () => {
      try {
        const [sent, received, status] = await Promise.all([
          replicationField(masterPort, 'master_repl_offset'),
          replicationField(replicaPort, 'slave_repl_offset'),
          replicationField(replicaPort, 'master_link_status'),
        ]);
        return status === 'up' && sent !== undefined && sent === received;
      } catch {
        return false;
      }
    },
    `${replicaPort} holds what ${masterPort} took`,
    timeoutMs,
  );
}

/** One master and its replica; `link` is what the replica (and every client) reaches the original master through. */
export interface Shard {
  readonly master: Node;
  readonly replica: Node;
  readonly link: ReplicationLink;
}

export interface FailoverTopology {
  readonly shards: readonly Shard[];
  /** Holds every replica behind its master. */
  hold(): void;
  release(): void;
  /** Kills the shards' current masters at once and promotes their replicas; resolves once the new masters serve. */
  failover(): Promise<void>;
  /** Starts the killed masters again; resolves once each is a replica in sync with its shard's new master. */
  rejoin(): Promise<void>;
  /** Waits until every replica holds what its master took. */
  inSync(): Promise<void>;
  /** Runs a command on the master holding `key` now. */
  onMaster(key: string, ...args: (string | number)[]): Promise<unknown>;
}

/** Which of a shard's two servers is the master now (after any number of failovers). */
class ShardRoles {
  constructor(
    readonly shard: Shard,
    public master: Node = shard.master,
    public replica: Node = shard.replica,
  ) {}

  swap(): void {
    [this.master, this.replica] = [this.replica, this.master];
  }
}

export interface TestReplicatedCluster extends FailoverTopology {
  /** Seed nodes for the gateway: every node, so that it finds the cluster whichever masters are lost. */
  readonly nodes: RedisNode[];
}

/**
 * Three masters, each with one replica replicating through the master's link; all 16384 slots
 * assigned; resolves once every node says cluster_state:ok and every replica is in sync.
 */
export async function startReplicatedCluster(t: Test): Promise<TestReplicatedCluster> {
  const dir = tempDir(t, 'replicated-cluster');
  const clusterLines = (name: string, bus: number) => [
    ...DATA,
    'cluster-enabled yes',
    `cluster-config-file ${join(dir, `${name}.nodes.conf`)}`,
    `cluster-port ${bus}`,
    'cluster-node-timeout 2000',
    'cluster-announce-ip 127.0.0.1',
  ];
  const shards: Shard[] = [];
  const buses: number[] = [];
  for (let i = 0; i < 3; i++) {
    const masterPort = await port();
    const link = await startReplicationLink(t, masterPort);
    const bus = await port();
    // A master is announced at its link, so its replica (and every client) reaches it through it.
    const master = node(t, dir, `master-${i}`, masterPort, [
      ...clusterLines(`master-${i}`, bus),
      `cluster-announce-port ${link.port}`,
      `cluster-announce-bus-port ${bus}`,
    ]);
    const replica = node(t, dir, `replica-${i}`, await port(), clusterLines(`replica-${i}`, await port()));
    await Promise.all([master.start(), replica.start()]);
    shards.push({ master, replica, link });
    buses.push(bus);
  }
  await run('redis-cli', ['--cluster', 'create', ...shards.map((s) => `127.0.0.1:${s.master.port}`), '--cluster-replicas', '0', '--cluster-yes'], {
    timeout: 30_000,
  });
  for (const [i, shard] of shards.entries()) {
    const masterId = String(await command(shard.master.port, 'CLUSTER', 'MYID'));
    await command(shard.replica.port, 'CLUSTER', 'MEET', '127.0.0.1', shard.master.port, buses[i]!);
    await until(async () => String(await command(shard.replica.port, 'CLUSTER', 'NODES')).includes(masterId), `replica-${i} knows its master`, 10_000);
    await command(shard.replica.port, 'CLUSTER', 'REPLICATE', masterId);
  }
  const roles = shards.map((shard) => new ShardRoles(shard));
  const everyNodeOk = async () => {
    for (const r of roles) {
      for (const n of [r.master, r.replica]) {
        await until(
          async () => String(await command(n.port, 'CLUSTER', 'INFO').catch(() => '')).includes('cluster_state:ok'),
          `${n.name} sees the cluster ok`,
          15_000,
        );
      }
    }
  };
  const allInSync = async () => {
    for (const r of roles) await inSync(r.master.port, r.replica.port);
  };
  await allInSync();
  await everyNodeOk();
  const killed: Node[] = [];
  return {
    shards,
    nodes: shards.flatMap((s) => [s.link.port, s.replica.port]).map((p) => ({ host: '127.0.0.1', port: p })),
    hold: () => shards.forEach((s) => s.link.hold()),
    release: () => shards.forEach((s) => s.link.release()),
    inSync: allInSync,
    failover: async () => {
      await Promise.all(roles.map((r) => r.master.kill()));
      killed.push(...roles.map((r) => r.master));
      // TAKEOVER: the replica claims its master's slots at once, without the master or a vote.
      await Promise.all(roles.map((r) => command(r.replica.port, 'CLUSTER', 'FAILOVER', 'TAKEOVER')));
      roles.forEach((r) => r.swap());
      for (const r of roles) await until(async () => (await role(r.master.port)) === 'master', `${r.master.name} is a master`, 10_000);
      await until(
        async () => {
          for (const r of roles) {
            const info = String(await command(r.master.port, 'CLUSTER', 'INFO'));
            if (!info.includes('cluster_state:ok')) return false;
          }
          return true;
        },
        'the promoted masters serve every slot',
        15_000,
      );
    },
    rejoin: async () => {
      for (const n of killed.splice(0)) await n.start();
      await allInSync();
      await everyNodeOk();
    },
    onMaster: async (key, ...args) => {
      const client = new Cluster(
        roles.map((r) => ({ host: '127.0.0.1', port: r.master.port })),
        { lazyConnect: true, enableOfflineQueue: true, clusterRetryStrategy: () => null },
      );
      client.on('error', () => {});
      try {
        await client.connect();
        return await client.call(String(args[0]), key, ...args.slice(1).map(String));
      } finally {
        client.disconnect();
      }
    },
  };
}

export interface TestHeldSentinels extends FailoverTopology {
  readonly masterName: string;
  readonly sentinels: RedisNode[];
}

/**
 * One master (reached through its link, as the sentinels know it) and one replica, under three
 * sentinels with quorum 2; resolves once the replica is in sync and the sentinels know each other.
 */
export async function startHeldSentinels(t: Test, masterName = 'gateway-durability'): Promise<TestHeldSentinels> {
  const dir = tempDir(t, 'held-sentinels');
  const masterPort = await port();
  const link = await startReplicationLink(t, masterPort);
  const master = node(t, dir, 'master', masterPort, DATA);
  await master.start();
  const replica = node(t, dir, 'replica', await port(), [...DATA, `replicaof 127.0.0.1 ${link.port}`]);
  await replica.start();
  await inSync(master.port, replica.port);
  const sentinels: Node[] = [];
  for (let i = 0; i < 3; i++) {
    const sentinel = node(
      t,
      dir,
      `sentinel-${i}`,
      await port(),
      [
        `sentinel monitor ${masterName} 127.0.0.1 ${link.port} 2`,
        `sentinel down-after-milliseconds ${masterName} 1000`,
        `sentinel failover-timeout ${masterName} 5000`,
      ],
      true,
    );
    await sentinel.start();
    sentinels.push(sentinel);
  }
  for (const sentinel of sentinels) {
    await until(
      async () => {
        const replicas = (await command(sentinel.port, 'SENTINEL', 'REPLICAS', masterName)) as unknown[];
        const others = (await command(sentinel.port, 'SENTINEL', 'SENTINELS', masterName)) as unknown[];
        return replicas.length === 1 && others.length === 2;
      },
      `sentinel ${sentinel.port} knows the replica and the other sentinels`,
      15_000,
    );
  }
  const shard: Shard = { master, replica, link };
  const roles = new ShardRoles(shard);
  /** The port the sentinels name as master (the link's, for the original master). */
  const namedMaster = async () => Number(((await command(sentinels[0]!.port, 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', masterName)) as string[])[1]);
  const portOf = (n: Node) => (n === master ? link.port : n.port);
  let killed: Node | undefined;
  return {
    masterName,
    shards: [shard],
    sentinels: sentinels.map((s) => ({ host: '127.0.0.1', port: s.port })),
    hold: () => link.hold(),
    release: () => link.release(),
    inSync: () => inSync(roles.master.port, roles.replica.port),
    failover: async () => {
      killed = roles.master;
      await killed.kill();
      const promoted = roles.replica;
      // Forced at once rather than after down-after-milliseconds; refused while the sentinels still
      // think the replica unfit (its link just dropped): asked again.
      await until(
        async () => (await command(sentinels[0]!.port, 'SENTINEL', 'FAILOVER', masterName).catch(() => '')) === 'OK',
        'a sentinel starts the failover',
        10_000,
      );
      await until(
        async () => (await namedMaster()) === portOf(promoted) && (await role(promoted.port)) === 'master',
        `the sentinels name ${promoted.name} master`,
        15_000,
      );
      roles.swap();
    },
    rejoin: async () => {
      if (!killed) return;
      // Started as a replica of the new master, at the address the sentinels give it (they would
      // reconfigure it so themselves, at their next look at it: up to 10 s later).
      await killed.start(['--replicaof', '127.0.0.1', String(portOf(roles.master))]);
      killed = undefined;
      await until(async () => (await role(roles.replica.port).catch(() => '')) === 'slave', `${roles.replica.name} is a replica again`, 20_000);
      await inSync(roles.master.port, roles.replica.port, 20_000);
      for (const sentinel of sentinels) {
        await until(
          async () => ((await command(sentinel.port, 'SENTINEL', 'REPLICAS', masterName)) as unknown[]).length >= 1,
          `sentinel ${sentinel.port} knows the replica`,
          15_000,
        );
      }
    },
    onMaster: async (key, ...args) => {
      const client = new Redis({ host: '127.0.0.1', port: roles.master.port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      client.on('error', () => {});
      try {
        await client.connect();
        return await client.call(String(args[0]), key, ...args.slice(1).map(String));
      } finally {
        client.disconnect();
      }
    },
  };
}
