// npm run bench: one table from one run. Each figure is a warm-up then a measured run, with the CPU
// time per request of the process under test beside its references: the upstream answering
// directly, nginx proxy_pass (when installed), the bare @fastify/http-proxy, and oidc-provider for
// the token endpoint (with each JWT algorithm's own cost below the table), the floors the targets
// are measured against (the token endpoint's: a bare node:http server issuing one JWT; the signed
// route's: the bare proxy plus one verification and one nonce round trip), tracing's cost (off,
// unsampled, sampled; npm run bench:tracing runs those rows alone), and the Bearer and decision rows
// again at the default log level, info (the others run at warn). Embedded store by
// default; Redis with REDIS_URL (then BENCH_ACCOUNTS seeds a population of service accounts, and
// GATEWAY_WORKERS > 1 adds a row with that many workers). The Bearer, decision, signed and token rows
// are also run on the other store (on Redis: a redis-server of the bench's own), so one run prints the
// targets of both.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { processTree } from './cpu.js';
import { createClient, startGateway, type BenchClient, type Gateway } from './gateway.js';
import { describeJwtAlgorithms, measureJwtAlgorithms } from './jwt-algorithms.js';
import { envoyBearerCheck, grpcCheckGenerator } from './grpc-load.js';
import { autocannonGenerator, runAutocannon } from './load.js';
import type { LoadGenerator } from './load-target.js';
import { measureFigure, type Figure, type FigureTarget } from './measure.js';
import { nginxInstalled, startNginx } from './nginx.js';
import { freePort, startProcess, stopProcess } from './processes.js';
import { deleteRedisPrefix, localRedisPid, seedServiceAccounts } from './redis.js';
import { adminDeletionMs, redisServerInstalled, startOwnRedis, startReplicatedRedis } from './replicated-redis.js';
import { ed25519VerificationUs, nonceRoundTripUs } from './signed-floor.js';
import { dpopSalesTarget } from './dpop-route.js';
import { signedBalanceDecision, signedBalanceTarget } from './signed-route.js';
import { STALLED_PER_KIND, startStalledUploads } from './stalled-uploads.js';
import { tracingRows } from './tracing.js';
import { printTable, ratio, type Line, type Row } from './table.js';
import { wrk, wrkInstalled } from './wrk.js';

const started = performance.now();
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARMUP_SECONDS = 2;
const CONNECTIONS = 32;
const FIXED_RATE = 1000;
const REDIS_URL = process.env.REDIS_URL || undefined;
type Store = 'embedded' | 'redis';
const STORE: Store = REDIS_URL ? 'redis' : 'embedded';
/** The Bearer route's CPU per request against the bare proxy's, per store. */
const BEARER_TARGET: Readonly<Record<Store, string>> = { redis: '≤ 1.0×', embedded: '< 1.0×' };
const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 0);
const WORKERS = process.env.GATEWAY_WORKERS === 'auto' ? availableParallelism() : Number(process.env.GATEWAY_WORKERS ?? 1);
const SALES = '/v1/sales/42';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
/** The client address an edge proxy names in X-Forwarded-For when it asks for a decision. */
const EDGE_CLIENT = '192.0.2.10';

// BENCH_LOAD_GENERATOR=autocannon tries the fallback on a machine that has wrk.
const generator: LoadGenerator = wrkInstalled() && process.env.BENCH_LOAD_GENERATOR !== 'autocannon' ? wrk : autocannonGenerator;
// wrk cannot pace requests: the fixed-rate latency figures always use autocannon. Its rate is a
// quota per connection and second, sent back to back as each second starts: over 32 connections
// the second's requests would arrive as a burst 32 deep, and p99 would measure that queue. One
// connection keeps one request in flight, as a steady 1,000 req/s of sub-millisecond requests does.
const PACED_CONNECTIONS = 1;
const paced: LoadGenerator = {
  name: `autocannon at ${FIXED_RATE} req/s`,
  run: (target, options) => runAutocannon(target, { ...options, connections: PACED_CONNECTIONS, overallRate: FIXED_RATE }),
};

/** Undone in reverse order at the end, whatever happened. */
const cleanups: (() => Promise<void> | void)[] = [];

function progress(text: string): void {
  console.error(`[bench ${((performance.now() - started) / 1000).toFixed(0).padStart(3)} s] ${text}`);
}

async function figure(name: string, target: FigureTarget, pids: readonly number[], sidePids: readonly number[] = [], load = generator): Promise<Figure> {
  progress(name);
  return measureFigure(target, { generator: load, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, connections: CONNECTIONS, pids, sidePids });
}

/** The figures of the 1-process gateway, for its peak resident memory. */
const gatewayFigures: Figure[] = [];

async function gatewayFigure(name: string, target: FigureTarget, pids: readonly number[], sidePids: readonly number[], load = generator): Promise<Figure> {
  const result = await figure(name, target, pids, sidePids, load);
  gatewayFigures.push(result);
  return result;
}

const bearer = (gateway: Gateway, token: string): FigureTarget => ({ url: gateway.url + SALES, headers: { authorization: `Bearer ${token}` } });
const FOOTNOTE_MARKS = ['¹', '²', '³', '⁴', '⁵'];
const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
const cpuAndRate = (figure: Figure, reference: Figure) =>
  `CPU ${ratio(figure.cpuUsPerRequest / reference.cpuUsPerRequest)}, req/s ${ratio(figure.requestsPerSecond / reference.requestsPerSecond)}`;

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'gateway-bench-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const redisPrefix = `bench:${randomBytes(6).toString('hex')}:`;
  if (REDIS_URL) cleanups.push(() => deleteRedisPrefix(REDIS_URL, redisPrefix));
  const sidePids = REDIS_URL ? [await localRedisPid(REDIS_URL)].filter((pid): pid is number => pid !== undefined) : [];
  const lines: Line[] = [];
  const notes: string[] = [];
  // Numbered in the order rows need them, so a run without the workers row has no gap.
  let footnotes = 0;
  const footnote = (text: string): string => {
    const mark = FOOTNOTE_MARKS[footnotes++]!;
    notes.push(`${mark} ${text}`);
    return mark;
  };

  const upstreamPort = await freePort();
  const upstreamProcess = await startProcess(['dist/bench/echo-upstream.js', String(upstreamPort)], {}, 'listening');
  cleanups.push(() => stopProcess(upstreamProcess));
  const upstream = `http://127.0.0.1:${upstreamPort}`;

  const barePort = await freePort();
  const bareProcess = await startProcess(['dist/bench/bare-proxy.js', upstream, String(barePort)], {}, 'ready');
  cleanups.push(() => stopProcess(bareProcess));

  const gatewayDir = (name: string) => {
    const dir = join(root, name);
    mkdirSync(dir);
    return dir;
  };
  const gateway = await startGateway({ upstream, dataDir: gatewayDir('gateway'), redisPrefix, workers: 1 });
  cleanups.push(() => gateway.stop());
  const client = await createClient(gateway);

  // Proxied GET: the references, then the gateway's Bearer route.
  lines.push({ section: `GET ${SALES}` });
  const direct = await figure('upstream direct', { url: upstream + SALES }, [upstreamProcess.pid!]);
  lines.push({ scenario: 'upstream alone, Node http (reference)', figure: direct });
  if (nginxInstalled()) {
    const nginx = await startNginx(upstreamPort);
    try {
      const figureNginx = await figure('nginx proxy_pass', { url: nginx.url + SALES }, [nginx.pid]);
      lines.push({ scenario: 'nginx proxy_pass, keep-alive (reference)', figure: figureNginx });
    } finally {
      await nginx.stop();
    }
  } else {
    notes.push('nginx is not installed (/usr/sbin/nginx): no nginx row.');
  }
  const bare = await figure('bare @fastify/http-proxy', { url: `http://127.0.0.1:${barePort}${SALES}` }, [bareProcess.pid!]);
  lines.push({ scenario: 'bare @fastify/http-proxy (reference)', figure: bare });
  const gatewayPids = processTree(gateway.pid);
  const bearerOne = await gatewayFigure('gateway Bearer route', bearer(gateway, client.token), gatewayPids, sidePids);
  lines.push({
    scenario: 'gateway: Bearer route',
    figure: bearerOne,
    comparison: `vs bare proxy: CPU ${ratio(bearerOne.cpuUsPerRequest / bare.cpuUsPerRequest)} (target ${BEARER_TARGET[STORE]}), req/s ${ratio(bearerOne.requestsPerSecond / bare.requestsPerSecond)}`,
  });
  const dpopOne = await gatewayFigure('gateway DPoP route', await dpopSalesTarget(gateway, SALES), gatewayPids, sidePids);
  lines.push({
    scenario: 'gateway: DPoP-bound token, a fresh proof each (Ed25519)',
    figure: dpopOne,
    comparison: `vs the Bearer route: ${cpuAndRate(dpopOne, bearerOne)}; vs bare proxy: CPU ${ratio(dpopOne.cpuUsPerRequest / bare.cpuUsPerRequest)}`,
  });
  const bearerDecision = await gatewayFigure(
    'gateway decision, Bearer (Envoy ext_authz)',
    { url: `${gateway.decisionUrl}/envoy${SALES}`, headers: { authorization: `Bearer ${client.token}`, 'x-forwarded-for': EDGE_CLIENT } },
    gatewayPids,
    sidePids,
  );
  const decisionMark = footnote(
    'The decision listener answers 200 with the identity headers and forwards nothing: the same checks as the proxied row above it, without the upstream round trip (an edge proxy in front would add its own cost).',
  );
  lines.push({
    scenario: `gateway: decision only, Bearer (Envoy shape)${decisionMark}`,
    figure: bearerDecision,
    comparison: `vs bare proxy: CPU ${ratio(bearerDecision.cpuUsPerRequest / bare.cpuUsPerRequest)} (target ≤ 0.6×); vs the proxied Bearer route: ${cpuAndRate(bearerDecision, bearerOne)}`,
  });
  // The same decision asked of the gRPC listener (envoy.service.auth.v3.Authorization/Check).
  const grpcLoad = grpcCheckGenerator(gateway.decisionGrpcAddress, envoyBearerCheck(SALES, new URL(gateway.url).host, client.token, EDGE_CLIENT));
  const bearerGrpcDecision = await gatewayFigure(
    'gateway gRPC decision, Bearer (Envoy ext_authz gRPC)',
    { url: gateway.decisionGrpcAddress },
    gatewayPids,
    sidePids,
    grpcLoad,
  );
  const grpcMark = footnote(
    `The gRPC decision listener's Check for the same request, as Envoy's ext_authz gRPC service asks it: gRPC over node:http2 from the bench process, ${CONNECTIONS} calls in flight on one connection (ghz is not installed).`,
  );
  lines.push({
    scenario: `gateway: gRPC decision only, Bearer (Envoy Check)${grpcMark}`,
    figure: bearerGrpcDecision,
    comparison: `vs the HTTP decision: ${cpuAndRate(bearerGrpcDecision, bearerDecision)}`,
  });
  // The same rows on the other store (here, and for the signed route and the token endpoint below): a
  // run prints the targets of both.
  const otherStore: Store = STORE === 'redis' ? 'embedded' : 'redis';
  const ownRedis = otherStore === 'redis' && redisServerInstalled() ? await startOwnRedis() : undefined;
  if (ownRedis) cleanups.push(() => ownRedis.stop());
  let other: { gateway: Gateway; client: BenchClient; pids: number[]; side: number[] } | undefined;
  if (otherStore === 'embedded' || ownRedis) {
    const otherGateway = await startGateway({
      upstream,
      dataDir: gatewayDir(`gateway-${otherStore}`),
      redisPrefix,
      workers: 1,
      env: ownRedis ? { REDIS_URL: ownRedis.url } : { REDIS_URL: '' },
    });
    cleanups.push(() => otherGateway.stop());
    other = { gateway: otherGateway, client: await createClient(otherGateway), pids: processTree(otherGateway.pid), side: ownRedis?.pids ?? [] };
    const otherBearer = await gatewayFigure(`gateway Bearer route, ${otherStore} store`, bearer(other.gateway, other.client.token), other.pids, other.side);
    lines.push({
      scenario: `gateway: Bearer route, ${otherStore} store`,
      figure: otherBearer,
      comparison: `vs bare proxy: CPU ${ratio(otherBearer.cpuUsPerRequest / bare.cpuUsPerRequest)} (target ${BEARER_TARGET[otherStore]})`,
    });
    const otherDecision = await gatewayFigure(
      `gateway decision, Bearer, ${otherStore} store`,
      { url: `${other.gateway.decisionUrl}/envoy${SALES}`, headers: { authorization: `Bearer ${other.client.token}`, 'x-forwarded-for': EDGE_CLIENT } },
      other.pids,
      other.side,
    );
    lines.push({
      scenario: `gateway: decision only, Bearer, ${otherStore} store`,
      figure: otherDecision,
      comparison: `vs bare proxy: CPU ${ratio(otherDecision.cpuUsPerRequest / bare.cpuUsPerRequest)} (target ≤ 0.6×)`,
    });
  } else {
    notes.push('redis-server is not installed: no rows on Redis.');
  }
  // The rows above run at warn, where a request writes no line; production runs at info by default.
  lines.push({ section: `GET ${SALES}, Bearer, at the default log level (info): a request line each` });
  const verbose = await startGateway({ upstream, dataDir: gatewayDir('info'), redisPrefix, workers: 1, env: { GATEWAY_LOG_LEVEL: 'info' } });
  try {
    const verboseClient = await createClient(verbose);
    const verbosePids = processTree(verbose.pid);
    const plus = (figure: Figure, quiet: Figure) =>
      `vs warn: CPU ${ratio(figure.cpuUsPerRequest / quiet.cpuUsPerRequest)} (+${(figure.cpuUsPerRequest - quiet.cpuUsPerRequest).toFixed(1)} µs/req)`;
    const infoBearer = await figure('gateway Bearer route, log level info', bearer(verbose, verboseClient.token), verbosePids, sidePids);
    lines.push({ scenario: 'gateway: Bearer route, log level info', figure: infoBearer, comparison: plus(infoBearer, bearerOne) });
    const infoDecision = await figure(
      'gateway decision, Bearer, log level info',
      { url: `${verbose.decisionUrl}/envoy${SALES}`, headers: { authorization: `Bearer ${verboseClient.token}`, 'x-forwarded-for': EDGE_CLIENT } },
      verbosePids,
      sidePids,
    );
    lines.push({ scenario: 'gateway: decision only, Bearer, log level info', figure: infoDecision, comparison: plus(infoDecision, bearerDecision) });
  } finally {
    await verbose.stop();
  }
  if (WORKERS > 1 && REDIS_URL) {
    // Same store and prefix: the client's token is valid there too.
    const workers = await startGateway({ upstream, dataDir: gatewayDir('workers'), redisPrefix, workers: WORKERS, adminToken: gateway.adminToken });
    try {
      const bearerMany = await figure(`gateway Bearer route, ${WORKERS} workers`, bearer(workers, client.token), processTree(workers.pid), sidePids);
      const workersMark = footnote(
        `CPU summed over the primary and its ${WORKERS} workers. wrk shares the ${availableParallelism()} cores with them (and with the upstream), so the workers cannot have a core each.`,
      );
      lines.push({
        scenario: `gateway: Bearer route, ${WORKERS} workers${workersMark}`,
        figure: bearerMany,
        comparison: `vs 1 worker: ${cpuAndRate(bearerMany, bearerOne)}; vs bare proxy: CPU ${ratio(bearerMany.cpuUsPerRequest / bare.cpuUsPerRequest)}`,
      });
    } finally {
      await workers.stop();
    }
  } else if (WORKERS > 1) {
    notes.push(`GATEWAY_WORKERS=${WORKERS} needs REDIS_URL (the embedded store serves one process): no workers row.`);
  }
  // Tracing's cost: off, on and unsampled, on and sampled, one after the other (bench/tracing.ts).
  lines.push({ section: `GET ${SALES}, Bearer, OpenTelemetry tracing (a gateway process for each)` });
  lines.push(
    ...(await tracingRows({
      upstream,
      redisPrefix,
      path: SALES,
      dataDir: gatewayDir,
      figure: (name, target, pids) => figure(name, target, pids, sidePids),
    })),
  );
  // The signed banking route, pre-signed.
  lines.push({ section: 'GET /v1/balance, signed (RFC 9421, Ed25519), pre-signed with fresh nonces' });
  const signedTarget = await signedBalanceTarget(gateway);
  // The same signed requests through the bare proxy: the same bytes in, and the echo's larger answer
  // (it returns every request header) out, so that the ratio is the checks' cost alone.
  const bareSigned = await figure('bare @fastify/http-proxy, signed requests', { ...signedTarget, url: `http://127.0.0.1:${barePort}/v1/balance` }, [
    bareProcess.pid!,
  ]);
  const sameRequestMark = footnote(
    'The bare proxy forwarding the very same pre-signed requests, unchecked: the same request headers in and the echo of them out, as the gateway row below it.',
  );
  lines.push({ scenario: `bare @fastify/http-proxy, same requests (reference)${sameRequestMark}`, figure: bareSigned });
  const signed = await gatewayFigure('gateway signed route', signedTarget, gatewayPids, sidePids);
  // The floor: the bare proxy forwarding the same requests, one Ed25519 verification, and on Redis the nonce's round trip.
  progress('the signed route floor: one Ed25519 verification, one nonce round trip');
  const verificationUs = ed25519VerificationUs();
  const signedFloorUs = async (redisUrl: string | undefined) =>
    bareSigned.cpuUsPerRequest + verificationUs + (redisUrl ? await nonceRoundTripUs(redisUrl, redisPrefix) : 0);
  const floorUs = await signedFloorUs(REDIS_URL);
  const floorMark = footnote(
    `The signed route's floor: the bare proxy on the same requests (${bareSigned.cpuUsPerRequest.toFixed(0)} µs) + one Ed25519 verification with libsodium (${verificationUs.toFixed(1)} µs) + on Redis one nonce's round trip, client side (SET NX EX auto-pipelined, 32 in flight; the embedded store keeps nonces in memory), measured in the bench process: ${floorUs.toFixed(0)} µs on the ${STORE} store.`,
  );
  const signedComparison = (figure: Figure, floor: number) =>
    `vs bare proxy, same requests: CPU ${ratio(figure.cpuUsPerRequest / bareSigned.cpuUsPerRequest)} (target ≤ 2.0× on Redis; floor ${ratio(floor / bareSigned.cpuUsPerRequest)}), req/s ${ratio(figure.requestsPerSecond / bareSigned.requestsPerSecond)}`;
  lines.push({ scenario: `gateway: signed banking route${floorMark}`, figure: signed, comparison: signedComparison(signed, floorUs) });
  if (other) {
    const otherSigned = await gatewayFigure(`gateway signed route, ${otherStore} store`, await signedBalanceTarget(other.gateway), other.pids, other.side);
    lines.push({
      scenario: `gateway: signed banking route, ${otherStore} store`,
      figure: otherSigned,
      comparison: signedComparison(otherSigned, await signedFloorUs(ownRedis?.url)),
    });
  }
  const signedDecision = await gatewayFigure(
    'gateway decision, signed (Traefik forwardAuth)',
    signedBalanceDecision(gateway, signedTarget, EDGE_CLIENT),
    gatewayPids,
    sidePids,
  );
  lines.push({
    scenario: `gateway: decision only, signed (Traefik shape)${decisionMark}`,
    figure: signedDecision,
    comparison: `vs the proxied signed route: ${cpuAndRate(signedDecision, signed)}`,
  });
  if (REDIS_URL && ACCOUNTS > 0) {
    progress(`seeding ${ACCOUNTS} service accounts`);
    const seedStart = performance.now();
    await seedServiceAccounts(REDIS_URL, redisPrefix, ACCOUNTS);
    notes.push(`${ACCOUNTS.toLocaleString('en')} service accounts seeded in ${((performance.now() - seedStart) / 1000).toFixed(1)} s (removed afterwards).`);
    const population = await gatewayFigure(`gateway signed route, ${ACCOUNTS} accounts`, signedTarget, gatewayPids, sidePids);
    lines.push({
      scenario: `gateway: signed, ${ACCOUNTS.toLocaleString('en')} accounts`,
      figure: population,
      comparison: `vs 1 account: ${cpuAndRate(population, signed)} (target within 5%)`,
    });
  } else if (ACCOUNTS > 0) {
    notes.push('BENCH_ACCOUNTS needs REDIS_URL: no population row.');
  }

  // A used nonce through a failover (GATEWAY_REDIS_NONCE_FAILOVER), on the bench's own master and replica.
  if (redisServerInstalled()) {
    lines.push({ section: 'GET /v1/balance, signed, on a Redis master with one replica: how a used nonce survives a failover' });
    const replicated = await startReplicatedRedis();
    cleanups.push(() => replicated.stop());
    const deletionMs: Record<string, number> = {};
    let offSigned: Figure | undefined;
    for (const [guard, replicas] of [
      ['off', '0'],
      ['fence', '0'],
      ['wait', '1'],
    ] as const) {
      const guarded = await startGateway({
        upstream,
        dataDir: gatewayDir(`nonce-${guard}`),
        redisPrefix,
        workers: 1,
        // No Bearer cache lease: the deletions' time is the replica's alone.
        env: { REDIS_URL: replicated.url, GATEWAY_REDIS_NONCE_FAILOVER: guard, GATEWAY_REDIS_ACK_REPLICAS: replicas, GATEWAY_REDIS_CACHE_LEASE_MS: '0' },
      });
      try {
        const result = await gatewayFigure(
          `gateway signed route, nonce failover ${guard}`,
          await signedBalanceTarget(guarded),
          processTree(guarded.pid),
          replicated.pids,
        );
        const explained = { off: 'off: the master alone', fence: 'fence: the master names itself', wait: 'wait: WAIT 1 per request' }[guard];
        lines.push({
          scenario: `gateway: signed, ${explained}`,
          figure: result,
          ...(offSigned ? { comparison: `vs off: ${cpuAndRate(result, offSigned)}, p50 +${(result.p50Ms - offSigned.p50Ms).toFixed(2)} ms` } : {}),
        });
        offSigned ??= result;
        if (guard !== 'fence') deletionMs[replicas] = await adminDeletionMs(guarded, 200);
      } finally {
        await guarded.stop();
      }
    }
    notes.push(
      `Admin change confirmed on the replica (GATEWAY_REDIS_ACK_REPLICAS=1: barrier and WAIT 1 on a connection of its own): a client deletion through the admin API took ${deletionMs['1']!.toFixed(2)} ms against ${deletionMs['0']!.toFixed(2)} ms without (mean of 200 in a row, loopback; GATEWAY_REDIS_CACHE_LEASE_MS=0: with the Bearer cache on, a deletion also waits out its lease, 100 ms by default).`,
    );
  } else {
    notes.push('redis-server is not installed: no rows for a master with a replica.');
  }

  // The token endpoint beside oidc-provider's.
  lines.push({ section: 'POST token endpoint, client_credentials, client_secret_post, JWT access token (EdDSA)' });
  const oidcPort = await freePort();
  const oidcSecret = randomBytes(24).toString('base64url');
  const oidcProcess = await startProcess(['dist/bench/oidc-provider-server.js', String(oidcPort), 'bench', oidcSecret], {}, 'ready');
  cleanups.push(() => stopProcess(oidcProcess));
  const tokenForm = (id: string, secret: string) =>
    new URLSearchParams({ grant_type: 'client_credentials', client_id: id, client_secret: secret, scope: 'sales' }).toString();
  const oidc = await figure(
    'oidc-provider token endpoint',
    { url: `http://127.0.0.1:${oidcPort}/token`, method: 'POST', headers: FORM, body: tokenForm('bench', oidcSecret) },
    [oidcProcess.pid!],
  );
  await stopProcess(oidcProcess);
  const { version: oidcVersion } = JSON.parse(readFileSync('node_modules/oidc-provider/package.json', 'utf8')) as { version: string };
  lines.push({ scenario: `oidc-provider ${oidcVersion} (reference)`, figure: oidc });
  const floorPort = await freePort();
  const floorSecret = randomBytes(32).toString('base64url');
  const floorProcess = await startProcess(['dist/bench/token-floor-server.js', String(floorPort), 'floor', floorSecret], {}, 'ready');
  cleanups.push(() => stopProcess(floorProcess));
  const floor = await figure(
    'token floor: node:http, form, HMAC, one EdDSA JWT',
    { url: `http://127.0.0.1:${floorPort}/token`, method: 'POST', headers: FORM, body: tokenForm('floor', floorSecret) },
    [floorProcess.pid!],
  );
  await stopProcess(floorProcess);
  lines.push({ scenario: 'node:http: read the form, check an HMAC, sign one EdDSA JWT (floor)', figure: floor });
  const token = await gatewayFigure(
    'gateway token endpoint',
    { url: `${gateway.url}/v1/oauth/token`, method: 'POST', headers: FORM, body: tokenForm(client.clientId, client.clientSecret) },
    gatewayPids,
    sidePids,
  );
  const tokenComparison = (figure: Figure) =>
    `vs the floor: CPU ${ratio(figure.cpuUsPerRequest / floor.cpuUsPerRequest)} (target ≤ 1.3×); vs oidc-provider: ${ratio(oidc.cpuUsPerRequest / figure.cpuUsPerRequest)} less CPU per token (target ≥ 3×), req/s ${ratio(figure.requestsPerSecond / oidc.requestsPerSecond)}`;
  lines.push({ scenario: 'gateway: POST /v1/oauth/token', figure: token, comparison: tokenComparison(token) });
  if (other) {
    const otherToken = await gatewayFigure(
      `gateway token endpoint, ${otherStore} store`,
      { url: `${other.gateway.url}/v1/oauth/token`, method: 'POST', headers: FORM, body: tokenForm(other.client.clientId, other.client.clientSecret) },
      other.pids,
      other.side,
    );
    lines.push({ scenario: `gateway: POST /v1/oauth/token, ${otherStore} store`, figure: otherToken, comparison: tokenComparison(otherToken) });
    await other.gateway.stop();
  }
  // The same endpoint signing with ES256: a gateway (and a client) of its own, since the signing
  // key set is shared by every gateway on one store.
  const es256 = await startGateway({ upstream, dataDir: gatewayDir('es256'), redisPrefix: `${redisPrefix}es256:`, workers: 1, jwtAlgorithm: 'ES256' });
  try {
    const es256Client = await createClient(es256);
    const tokenEs256 = await figure(
      'gateway token endpoint, ES256',
      { url: `${es256.url}/v1/oauth/token`, method: 'POST', headers: FORM, body: tokenForm(es256Client.clientId, es256Client.clientSecret) },
      processTree(es256.pid),
      sidePids,
    );
    lines.push({
      scenario: 'gateway: POST /v1/oauth/token, ES256 key',
      figure: tokenEs256,
      comparison: `vs the EdDSA key: ${cpuAndRate(tokenEs256, token)}; vs oidc-provider: ${ratio(oidc.cpuUsPerRequest / tokenEs256.cpuUsPerRequest)} less CPU`,
    });
  } finally {
    await es256.stop();
  }

  // Added latency at a fixed rate, well below saturation.
  lines.push({ section: `GET ${SALES} at a fixed ${FIXED_RATE} req/s (autocannon overallRate, ${PACED_CONNECTIONS} connection)` });
  const directPaced = await figure(`upstream direct at ${FIXED_RATE} req/s`, { url: upstream + SALES }, [upstreamProcess.pid!], [], paced);
  lines.push({ scenario: 'upstream alone (reference)', figure: directPaced });
  const bearerPaced = await gatewayFigure(`gateway Bearer route at ${FIXED_RATE} req/s`, bearer(gateway, client.token), gatewayPids, sidePids, paced);
  lines.push({
    scenario: 'gateway: Bearer route',
    figure: bearerPaced,
    comparison: `added latency: p99 +${(bearerPaced.p99Ms - directPaced.p99Ms).toFixed(2)} ms, p50 +${(bearerPaced.p50Ms - directPaced.p50Ms).toFixed(2)} ms`,
  });

  // Last: the attack leaves the process larger for a while, which would show in the rows after it.
  // First without any credential (an anonymous attacker), then with a real account's uploads besides.
  lines.push({ section: `GET ${SALES} while stalled uploads are held (the stalled-upload memory attack)` });
  const attacked: { withAccount: boolean; figure: Figure; held: number; opened: number }[] = [];
  for (const withAccount of [false, true]) {
    const attack = await startStalledUploads(gateway, { withAccount });
    const result = await figure(
      `gateway Bearer route, stalled uploads held${withAccount ? ', a real account among them' : ''}`,
      bearer(gateway, client.token),
      gatewayPids,
      sidePids,
    ).finally(() => attack.stop());
    attacked.push({ withAccount, figure: result, held: attack.held, opened: attack.opened });
  }
  const [anonymousAttack, accountAttack] = attacked as [(typeof attacked)[0], (typeof attacked)[0]];
  const attackMark = footnote(
    `While wrk runs, connections each declare a 1 MiB body, send all but its last byte and stall, ${STALLED_PER_KIND} of each kind: signed uploads by an unknown Access ID, Bearer uploads without a token and token forms (no credential at all; ${anonymousAttack.held} held, ${anonymousAttack.opened} opened in all), and on the second row signed uploads by a real account besides (held within the body budget; ${accountAttack.held} held, ${accountAttack.opened} opened). One closed is opened again after 1 s. The bench process runs them, on the same two cores.`,
  );
  for (const { withAccount, figure: result, held } of attacked) {
    lines.push({
      scenario: `gateway: Bearer route, ${held} stalled${withAccount ? ', 1 account' : ', no credential'}${attackMark}`,
      figure: result,
      comparison: `vs the Bearer route: RSS ${mb(result.rssBytes)} against ${mb(bearerOne.rssBytes)} MB (target ≤ 150), ${cpuAndRate(result, bearerOne)}`,
    });
  }

  progress('JWT signing and verification per algorithm');
  notes.push(...describeJwtAlgorithms(await measureJwtAlgorithms()));

  const rows = lines.filter((line): line is Row => 'figure' in line);
  const peakRss = Math.max(...gatewayFigures.map((f) => f.rssBytes));
  const refused = rows.filter((row) => row.figure.non2xx > 0).map((row) => row.scenario);
  if (refused.length > 0) notes.push(`WARNING: refusals (non-2xx) in: ${refused.join(', ')}; their figures are not of the scenario named.`);
  const exhausted = rows.filter((row) => row.figure.poolExhausted > 0).map((row) => row.scenario);
  if (exhausted.length > 0) notes.push(`WARNING: the pre-signed requests ran out (replays, refused, counted in non-2xx) in: ${exhausted.join(', ')}.`);
  printTable(
    [
      `store: ${REDIS_URL ? `redis (${new URL(REDIS_URL).host}, prefix ${redisPrefix})` : 'embedded'}; load: ${generator.name}, ${CONNECTIONS} connections; each figure ${SECONDS} s after a ${WARMUP_SECONDS} s warm-up`,
      `node ${process.versions.node}, ${availableParallelism()} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'})`,
    ],
    lines,
    [
      'CPU µs/req: utime + stime (/proc/<pid>/stat, every thread) of the process under test over the measured run, divided by the responses it gave;',
      '  the upstream and the load generator are not counted (except on the upstream rows, where the upstream is the process under test).',
      ...(sidePids.length > 0 ? ['+Redis µs/req: the local redis-server over the same run, per response (not in CPU µs/req).'] : []),
      `RSS MB: peak VmRSS (/proc/<pid>/status, sampled every 200 ms) during the figure. Gateway peak over its 1-process figures (the attack's excepted): ${mb(peakRss)} MB.`,
      `The load generator (${generator.name}: one core) shares the ${availableParallelism()} cores with the process under test and the echo upstream.`,
      'non-2xx: responses with status ≥ 400 (wrk: "Non-2xx or 3xx"); errors: socket errors and timeouts.',
      ...notes,
    ],
  );
}

async function cleanUp(): Promise<void> {
  // splice: a signal during the cleanup does not run a step twice.
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
}

// Killed or interrupted, the bench still stops what it started and removes its Redis keys.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void cleanUp().finally(() => process.exit(1)));

try {
  await main();
} finally {
  await cleanUp();
  console.log(`\ntotal elapsed: ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
