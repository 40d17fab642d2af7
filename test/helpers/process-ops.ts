// Helpers for tests of gateway processes (signals, drains, workers): their JSON log lines, a Bearer
// token through the real listeners, and plain GETs whose connection reuse can be observed.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request, type Agent, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Test } from 'tap';
import { startEchoUpstream, type EchoUpstream } from '../../gateway/examples/echo-upstream.js';
import type { GatewayProcess } from './gateway-process.js';
import { removeOnInterrupt } from './interrupt-cleanup.js';
import { deleteKeysWithPrefix, TEST_REDIS_URL, uniquePrefix } from './redis.js';

export interface SharedRedisDeployment {
  /** The environment every gateway process of the deployment starts with. */
  env: Record<string, string>;
  adminToken: string;
  /** A scratch directory of the test's own (also the processes' GATEWAY_DATA_DIR). */
  dir: string;
  publicApi: EchoUpstream;
  banking: EchoUpstream;
}

/**
 * What a test of several gateway processes on the shared Redis needs: both echo upstreams, a key
 * prefix of its own, a data directory and an admin token, all removed when the test ends (the
 * prefix's keys and the directory also when the test process is interrupted before).
 */
export async function sharedRedisDeployment(t: Test, name: string): Promise<SharedRedisDeployment> {
  const publicApi = await startEchoUpstream('public');
  const banking = await startEchoUpstream('banking');
  const prefix = uniquePrefix(`gw-${name}`);
  const dir = mkdtempSync(join(tmpdir(), `gw-${name}-`));
  const forgetDir = removeOnInterrupt(dir);
  t.teardown(async () => {
    await publicApi.close();
    await banking.close();
    await deleteKeysWithPrefix(prefix);
    rmSync(dir, { recursive: true, force: true });
    forgetDir();
  });
  const adminToken = randomBytes(24).toString('hex');
  const env = {
    REDIS_URL: TEST_REDIS_URL,
    GATEWAY_REDIS_KEY_PREFIX: prefix,
    GATEWAY_ADMIN_TOKEN: adminToken,
    PUBLIC_UPSTREAM: publicApi.url,
    BANKING_UPSTREAM: banking.url,
    GATEWAY_DATA_DIR: dir,
  };
  return { env, adminToken, dir, publicApi, banking };
}

export interface LogLine {
  msg?: string;
  pid?: number;
  [key: string]: unknown;
}

/** The JSON lines the process wrote so far (anything else is skipped). */
export function logLines(gw: GatewayProcess): LogLine[] {
  return gw
    .output()
    .split('\n')
    .flatMap((line) => {
      if (!line.startsWith('{')) return [];
      try {
        return [JSON.parse(line) as LogLine];
      } catch {
        return [];
      }
    });
}

/** Waits (at most timeoutMs) until `count` log lines have the message `msg`; returns them. */
export async function waitForLog(gw: GatewayProcess, msg: string, count = 1, timeoutMs = 20_000): Promise<LogLine[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const lines = logLines(gw).filter((line) => line.msg === msg);
    if (lines.length >= count) return lines;
    if (Date.now() > deadline) throw new Error(`the gateway did not log ${JSON.stringify(msg)} ${count} times:\n${gw.output()}`);
    await sleep(50);
  }
}

/** Resolves with the exit of a child process (or rejects after timeoutMs). */
export function exitOf(gw: GatewayProcess, timeoutMs = 30_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (gw.child.exitCode !== null || gw.child.signalCode !== null) return Promise.resolve({ code: gw.child.exitCode, signal: gw.child.signalCode });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the gateway did not exit within ${timeoutMs} ms:\n${gw.output()}`)), timeoutMs);
    gw.child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal });
    });
  });
}

/** Creates an OAuth client through the admin API and returns a token for it. */
export async function bearerToken(gw: GatewayProcess, adminToken: string, scopes: string[]): Promise<string> {
  const created = await fetch(`${gw.adminUrl}/admin/v1/clients`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'process test', scopes }),
  });
  if (created.status !== 201) throw new Error(`client creation failed: ${created.status} ${await created.text()}`);
  const client = (await created.json()) as { client_id: string; client_secret: string };
  const response = await fetch(`${gw.publicUrl}/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: client.client_id, client_secret: client.client_secret }),
  });
  if (response.status !== 200) throw new Error(`token request failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

export interface GetResult {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** The request went out on a connection an earlier request had opened. */
  reused: boolean;
}

/** A GET through `agent` (false: a connection of its own), bounded by timeoutMs. */
export function get(url: string, headers: Record<string, string>, agent: Agent | false, timeoutMs = 10_000): Promise<GetResult> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, agent, timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, reused: req.reusedSocket }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}

/** Resident memory of a process, in bytes (VmRSS from /proc). */
export function residentBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)![1]) * 1024;
}
