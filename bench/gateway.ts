// The gateway under test, started from dist/ as `npm start` would, and the admin calls the bench
// makes to it (a client, its token, a service account).
import { readFileSync } from 'node:fs';
import { createPrivateKey, randomBytes, type KeyObject } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import type { JwtAlgorithm } from '../gateway/config/settings.js';
import { generateSigningKey } from '../gateway/signing/index.js';
import { freePort, startProcess, stopProcess } from './processes.js';

export interface GatewayOptions {
  upstream: string;
  dataDir: string;
  redisPrefix: string;
  /** Set explicitly, so that a GATEWAY_WORKERS in the bench's own environment does not leak in. */
  workers: number;
  /** The admin token of a gateway sharing the same store; a fresh one otherwise. */
  adminToken?: string;
  /** The access tokens' signing algorithm, and the only one allowed; the gateway's default otherwise. */
  jwtAlgorithm?: JwtAlgorithm;
  /** More settings (e.g. another REDIS_URL), over the bench's own. */
  env?: NodeJS.ProcessEnv;
}

export interface Gateway {
  url: string;
  adminUrl: string;
  /** The decision listener (edge proxies ask there; 127.0.0.1 is its trusted proxy). */
  decisionUrl: string;
  /** The gRPC decision listener, host:port (Envoy's ext_authz gRPC service). */
  decisionGrpcAddress: string;
  adminToken: string;
  /** The process started: the cluster primary when workers > 1. */
  pid: number;
  stop(): Promise<void>;
}

const ISSUER = 'http://gateway.bench.test';

/** What `npm start` runs after `node` (package.json), so the bench measures the gateway as deployed. */
const START_ARGS = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } }).scripts.start.split(' ').slice(1);

export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const [port, adminPort, decisionPort, decisionGrpcPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const adminToken = options.adminToken ?? randomBytes(32).toString('hex');
  const child: ChildProcess = await startProcess(
    START_ARGS,
    {
      GATEWAY_PORT: String(port),
      GATEWAY_ADMIN_PORT: String(adminPort),
      GATEWAY_DECISION_PORT: String(decisionPort),
      GATEWAY_DECISION_GRPC_PORT: String(decisionGrpcPort),
      GATEWAY_TRUSTED_PROXIES: '127.0.0.1/32',
      GATEWAY_HOST: '127.0.0.1',
      GATEWAY_ADMIN_TOKEN: adminToken,
      GATEWAY_DATA_DIR: options.dataDir,
      GATEWAY_LOG_LEVEL: 'warn',
      GATEWAY_WORKERS: String(options.workers),
      // Nothing to drain between scenarios: stop at once.
      GATEWAY_SHUTDOWN_DRAIN_SECONDS: '0',
      GATEWAY_REDIS_KEY_PREFIX: options.redisPrefix,
      // One issuer (and audience) for every gateway of the run, not one per port: a token from one
      // is valid at another on the same store.
      GATEWAY_ISSUER: ISSUER,
      PUBLIC_UPSTREAM: options.upstream,
      BANKING_UPSTREAM: options.upstream,
      ...(options.jwtAlgorithm ? { GATEWAY_JWT_SIGNING_ALGORITHM: options.jwtAlgorithm, GATEWAY_JWT_ALLOWED_ALGORITHMS: options.jwtAlgorithm } : {}),
      ...options.env,
    },
    'gateway started',
  );
  return {
    url: `http://127.0.0.1:${port}`,
    adminUrl: `http://127.0.0.1:${adminPort}`,
    decisionUrl: `http://127.0.0.1:${decisionPort}`,
    decisionGrpcAddress: `127.0.0.1:${decisionGrpcPort}`,
    adminToken,
    pid: child.pid!,
    stop: () => stopProcess(child),
  };
}

export async function adminCall<T>(gateway: Gateway, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(gateway.adminUrl + path, {
    method,
    headers: { authorization: `Bearer ${gateway.adminToken}`, 'content-type': 'application/json' },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

export interface BenchClient {
  clientId: string;
  clientSecret: string;
  /** A Bearer token for the `sales` scope. */
  token: string;
}

/** An OAuth client allowed the `sales` scope, and one token of it. */
export async function createClient(gateway: Gateway): Promise<BenchClient> {
  const client = await adminCall<{ client_id: string; client_secret: string }>(gateway, 'POST', '/admin/v1/clients', { name: 'bench', scopes: ['sales'] });
  const response = await fetch(`${gateway.url}/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret }).toString(),
  });
  if (!response.ok) throw new Error(`token request failed: ${response.status} ${await response.text()}`);
  const { access_token: token } = (await response.json()) as { access_token: string };
  return { clientId: client.client_id, clientSecret: client.client_secret, token };
}

export interface BenchServiceAccount {
  accessId: string;
  privateKey: KeyObject;
}

/** A service account with a fresh Ed25519 key, created through the admin API as an operator would. */
export async function createServiceAccount(gateway: Gateway, description: string, permissions: string[]): Promise<BenchServiceAccount> {
  const { privateKeyPem, publicKeyLine } = generateSigningKey('bench');
  const { access_id: accessId } = await adminCall<{ access_id: string }>(gateway, 'POST', '/admin/v1/service-accounts', {
    description,
    public_key: publicKeyLine,
    permissions,
  });
  return { accessId, privateKey: createPrivateKey(privateKeyPem) };
}
