// Real Redis topologies for a test, made of redis-server processes on free loopback ports in a
// temporary directory: a 3-master Cluster, or a master with one replica watched by three
// sentinels. Every process is stopped, and the directory removed, in the test's teardown (or when
// the test process is interrupted before it).
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import type { Test } from 'tap';
import { freePort, stopProcess } from '../../bench/processes.js';
import type { RedisNode } from '../../gateway/config/redis-settings.js';
import { killOnInterrupt, removeOnInterrupt } from './interrupt-cleanup.js';

const run = promisify(execFile);

export interface RedisServer {
  readonly port: number;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/** Polls until the check passes, every 100 ms for at most timeoutMs. */
export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 15_000): Promise<number> {
  const start = Date.now();
  for (let attempt = 0; attempt < timeoutMs / 100 + 1; attempt++) {
    if (await check().catch((error: Error) => (/exited with/.test(error.message) ? Promise.reject(error) : false))) return Date.now() - start;
    if (Date.now() - start > timeoutMs) break;
    await sleep(100);
  }
  throw new Error(`not within ${timeoutMs} ms: ${what}`);
}

/** Runs one command on a server over a short-lived connection. */
export async function command(port: number, ...args: (string | number)[]): Promise<unknown> {
  const redis = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1000 });
  redis.on('error', () => {});
  try {
    await redis.connect();
    return await redis.call(String(args[0]), ...args.slice(1).map(String));
  } finally {
    redis.disconnect();
  }
}

export function tempDir(t: Test, label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `gateway-${label}-`));
  const forget = removeOnInterrupt(dir);
  t.teardown(() => {
    rmSync(dir, { recursive: true, force: true });
    forget();
  });
  return dir;
}

const allocated = new Set<number>();

/** A free port not handed out before in this process (freePort alone may return one port twice in a row). */
export async function uniquePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await freePort();
    if (!allocated.has(port)) {
      allocated.add(port);
      return port;
    }
  }
  throw new Error('no unused free port in 50 attempts');
}

/** Starts redis-server with a config file (lines) in dir; resolves once it answers PING. */
export async function startServer(t: Test, dir: string, name: string, lines: string[], sentinel = false): Promise<RedisServer> {
  const port = await uniquePort();
  const conf = join(dir, `${name}.conf`);
  writeFileSync(conf, [`port ${port}`, 'bind 127.0.0.1', `dir ${dir}`, `logfile ${join(dir, `${name}.log`)}`, ...lines, ''].join('\n'));
  const child = spawn('redis-server', sentinel ? [conf, '--sentinel'] : [conf], { stdio: 'ignore', detached: false });
  // Registered before waiting: a server that never answers is stopped too, and none outlives this
  // process even if it is interrupted before its teardown.
  killOnInterrupt(child);
  const server: RedisServer = { port, child, stop: () => stopProcess(child) };
  t.teardown(() => server.stop());
  await waitFor(
    `${name} on port ${port} answers (log: ${join(dir, `${name}.log`)})`,
    async () => {
      if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`);
      return (await command(port, 'PING')) === 'PONG';
    },
    10_000,
  );
  return server;
}

export const DATA_NODE = ['save ""', 'appendonly no', 'protected-mode no'];

export interface TestCluster {
  readonly nodes: RedisNode[];
  readonly servers: RedisServer[];
}

/** Three masters, no replicas, all 16384 slots assigned; resolves once every node says cluster_state:ok. */
export async function startCluster(t: Test): Promise<TestCluster> {
  const dir = tempDir(t, 'cluster');
  const servers: RedisServer[] = [];
  for (let i = 0; i < 3; i++) {
    // The bus port is chosen too: the default (port + 10000) may be taken or out of range.
    const busPort = await uniquePort();
    servers.push(
      await startServer(t, dir, `node-${i}`, [
        ...DATA_NODE,
        'cluster-enabled yes',
        `cluster-config-file ${join(dir, `nodes-${i}.conf`)}`,
        `cluster-port ${busPort}`,
        'cluster-node-timeout 2000',
      ]),
    );
  }
  const addresses = servers.map((s) => `127.0.0.1:${s.port}`);
  await run('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes'], { timeout: 30_000 });
  for (const server of servers) {
    await waitFor(`node ${server.port} sees the cluster ok`, async () => String(await command(server.port, 'CLUSTER', 'INFO')).includes('cluster_state:ok'));
  }
  return { nodes: servers.map((s) => ({ host: '127.0.0.1', port: s.port })), servers };
}

export interface TestSentinels {
  readonly masterName: string;
  readonly sentinels: RedisNode[];
  readonly master: RedisServer;
  readonly replica: RedisServer;
  readonly sentinelServers: RedisServer[];
  /** The port of the server the sentinels now call master. */
  masterPort(): Promise<number>;
}

/** The role a server reports (`master`, `slave`, `sentinel`). */
export async function role(port: number): Promise<string> {
  return String(((await command(port, 'ROLE')) as unknown[])[0]);
}

/**
 * One master and one replica, three sentinels with quorum 2 and short timeouts. Resolves once the
 * replica is in sync and every sentinel knows the replica and the other two sentinels, so that a
 * failover can be agreed and carried out at once.
 */
export async function startSentinels(t: Test, masterName = 'gateway-test'): Promise<TestSentinels> {
  const dir = tempDir(t, 'sentinel');
  const master = await startServer(t, dir, 'master', DATA_NODE);
  const replica = await startServer(t, dir, 'replica', [...DATA_NODE, `replicaof 127.0.0.1 ${master.port}`]);
  await waitFor('the replica is in sync', async () => /master_link_status:up/.test(String(await command(replica.port, 'INFO', 'replication'))));
  const sentinelServers: RedisServer[] = [];
  for (let i = 0; i < 3; i++) {
    sentinelServers.push(
      await startServer(
        t,
        dir,
        `sentinel-${i}`,
        [
          `sentinel monitor ${masterName} 127.0.0.1 ${master.port} 2`,
          `sentinel down-after-milliseconds ${masterName} 1000`,
          `sentinel failover-timeout ${masterName} 5000`,
          `sentinel parallel-syncs ${masterName} 1`,
        ],
        true,
      ),
    );
  }
  for (const sentinel of sentinelServers) {
    await waitFor(`sentinel ${sentinel.port} knows the replica and the other sentinels`, async () => {
      const replicas = (await command(sentinel.port, 'SENTINEL', 'REPLICAS', masterName)) as unknown[];
      const others = (await command(sentinel.port, 'SENTINEL', 'SENTINELS', masterName)) as unknown[];
      return replicas.length === 1 && others.length === 2;
    });
  }
  const sentinels = sentinelServers.map((s) => ({ host: '127.0.0.1', port: s.port }));
  return {
    masterName,
    sentinels,
    master,
    replica,
    sentinelServers,
    masterPort: async () => Number(((await command(sentinelServers[0]!.port, 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', masterName)) as string[])[1]),
  };
}

/** Counts keys with a prefix on one server, by its loopback port or its URL (SCAN, bounded). */
export async function countKeys(server: number | string, prefix: string): Promise<number> {
  const redis = typeof server === 'number' ? new Redis({ host: '127.0.0.1', port: server }) : new Redis(server);
  redis.on('error', () => {});
  try {
    let cursor = '0';
    let count = 0;
    for (let round = 0; round < 10_000; round++) {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      count += keys.length;
      cursor = next;
      if (cursor === '0') break;
    }
    return count;
  } finally {
    redis.disconnect();
  }
}
