// The bench's own Redis (redis-server on free loopback ports, no persistence): a single server for
// the rows on Redis when the run is on the embedded store, and a master with one replica for what
// waiting on a replica costs: the signed route under each GATEWAY_REDIS_NONCE_FAILOVER, and an
// admin change with and without GATEWAY_REDIS_ACK_REPLICAS.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { adminCall, type Gateway } from './gateway.js';
import { freePort, stopProcess, waitForPort } from './processes.js';

export interface ReplicatedRedis {
  url: string;
  /** The master's and the replica's pids (their CPU time is the side column). */
  pids: number[];
  stop(): Promise<void>;
}

export function redisServerInstalled(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

async function server(port: number, dir: string, args: string[]): Promise<ChildProcess> {
  // A directory of its own: a replica writes the master's snapshot there, which a server started
  // in the same place would load (and carry on that history: failover-fence.ts).
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', ...args], {
    stdio: 'ignore',
  });
  await waitForPort(port);
  return child;
}

/** One server of the bench's own. */
export async function startOwnRedis(): Promise<ReplicatedRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'bench-redis-'));
  const child = await server(port, dir, []);
  return {
    url: `redis://127.0.0.1:${port}`,
    pids: [child.pid!],
    stop: async () => {
      await stopProcess(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function startReplicatedRedis(): Promise<ReplicatedRedis> {
  const [masterPort, replicaPort] = [await freePort(), await freePort()];
  const [masterDir, replicaDir] = [mkdtempSync(join(tmpdir(), 'bench-master-')), mkdtempSync(join(tmpdir(), 'bench-replica-'))];
  const master = await server(masterPort, masterDir, []);
  const replica = await server(replicaPort, replicaDir, ['--replicaof', '127.0.0.1', String(masterPort)]);
  const probe = new Redis(replicaPort, '127.0.0.1');
  try {
    for (let attempt = 0; attempt < 100 && !/master_link_status:up/.test(await probe.info('replication')); attempt++) await sleep(100);
  } finally {
    probe.disconnect();
  }
  return {
    url: `redis://127.0.0.1:${masterPort}`,
    pids: [master.pid!, replica.pid!],
    stop: async () => {
      await stopProcess(replica);
      await stopProcess(master);
      for (const dir of [masterDir, replicaDir]) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Mean milliseconds of one client deletion through the admin API (create, then time the DELETE), over `count` in a row. */
export async function adminDeletionMs(gateway: Gateway, count: number): Promise<number> {
  let total = 0;
  for (let i = 0; i < count; i++) {
    const { client_id: id } = await adminCall<{ client_id: string }>(gateway, 'POST', '/admin/v1/clients', { name: 'bench deletion', scopes: ['sales'] });
    const started = performance.now();
    const response = await fetch(`${gateway.adminUrl}/admin/v1/clients/${id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${gateway.adminToken}` },
    });
    total += performance.now() - started;
    if (response.status !== 204) throw new Error(`DELETE answered ${response.status}: ${await response.text()}`);
  }
  return total / count;
}
