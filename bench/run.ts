// npm run bench: token endpoint throughput, and a Bearer-protected proxied route beside a bare
// @fastify/http-proxy to the same upstream (and the upstream alone), from one run.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort, startProcess, stopProcess } from './processes.js';
import { runLoad, type LoadResult } from './load.js';
import { benchSignedRoute } from './signed-route.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const STORE = process.env.REDIS_URL ? 'redis' : 'embedded';

interface Row {
  scenario: string;
  result: LoadResult;
}

/** The bench's keys are removed from a shared Redis afterwards. */
async function deleteRedisPrefix(prefix: string): Promise<void> {
  if (!process.env.REDIS_URL) return;
  const redis = new Redis(process.env.REDIS_URL);
  const stream = redis.scanStream({ match: `${prefix}*`, count: 500 });
  for await (const keys of stream) if ((keys as string[]).length > 0) await redis.del(...(keys as string[]));
  redis.disconnect();
}

async function adminCall<T>(adminUrl: string, token: string, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(adminUrl + path, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

function print(rows: Row[]): void {
  console.log(`\nstore: ${STORE}, ${CONNECTIONS} connections, ${SECONDS} s per scenario, node ${process.versions.node}, ${availableParallelism()} cores\n`);
  const header = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors'];
  const lines = rows.map((r) => [r.scenario, String(r.result.requestsPerSecond), String(r.result.p50Ms), String(r.result.p99Ms), String(r.result.non2xx), String(r.result.errors)]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  for (const line of [header, ...lines]) console.log(line.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  '));
}

async function main(): Promise<void> {
  const children: ChildProcess[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-bench-'));
  try {
    const upstreamPort = await freePort();
    children.push(await startProcess(['dist/gateway/examples/echo-main.js', 'bench', String(upstreamPort)], {}, 'listening'));
    const upstream = `http://127.0.0.1:${upstreamPort}`;

    const barePort = await freePort();
    children.push(await startProcess(['dist/bench/bare-proxy.js', upstream, String(barePort)], {}, 'ready'));

    const [port, adminPort] = [await freePort(), await freePort()];
    const redisPrefix = `bench:${randomBytes(6).toString('hex')}:`;
    cleanups.push(() => deleteRedisPrefix(redisPrefix));
    const adminToken = randomBytes(32).toString('hex');
    children.push(
      await startProcess(
        ['dist/gateway/main.js'],
        {
          GATEWAY_PORT: String(port),
          GATEWAY_ADMIN_PORT: String(adminPort),
          GATEWAY_HOST: '127.0.0.1',
          GATEWAY_ADMIN_TOKEN: adminToken,
          GATEWAY_DATA_DIR: dataDir,
          GATEWAY_LOG_LEVEL: 'warn',
          // Nothing to drain between scenarios: stop at once.
          GATEWAY_SHUTDOWN_DRAIN_SECONDS: '0',
          GATEWAY_REDIS_KEY_PREFIX: redisPrefix,
          PUBLIC_UPSTREAM: upstream,
          BANKING_UPSTREAM: upstream,
        },
        'gateway started',
      ),
    );
    const gatewayUrl = `http://127.0.0.1:${port}`;
    const adminUrl = `http://127.0.0.1:${adminPort}`;
    const client = await adminCall<{ client_id: string; client_secret: string }>(adminUrl, adminToken, 'POST', '/admin/v1/clients', { name: 'bench', scopes: ['sales'] });
    const tokenForm = new URLSearchParams({ client_id: client.client_id, client_secret: client.client_secret }).toString();
    const tokenResponse = await fetch(`${gatewayUrl}/v1/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: tokenForm });
    const { access_token: token } = (await tokenResponse.json()) as { access_token: string };

    const load = { seconds: SECONDS, connections: CONNECTIONS };
    const rows: Row[] = [];
    rows.push({ scenario: 'upstream alone (reference)', result: await runLoad({ ...load, url: `${upstream}/v1/sales/42` }) });
    rows.push({ scenario: 'bare @fastify/http-proxy', result: await runLoad({ ...load, url: `http://127.0.0.1:${barePort}/v1/sales/42` }) });
    rows.push({ scenario: 'gateway: Bearer route', result: await runLoad({ ...load, url: `${gatewayUrl}/v1/sales/42`, headers: { authorization: `Bearer ${token}` } }) });
    rows.push({ scenario: 'gateway: signed banking route', result: await benchSignedRoute({ gatewayUrl, adminUrl, adminToken, load }) });
    rows.push({
      scenario: 'gateway: POST /v1/oauth/token',
      result: await runLoad({ ...load, url: `${gatewayUrl}/v1/oauth/token`, method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: tokenForm }),
    });
    print(rows);
  } finally {
    await Promise.all(children.map(stopProcess));
    for (const cleanup of cleanups) await cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
