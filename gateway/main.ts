#!/usr/bin/env node
// Entry point of `npm start`: validate settings once, open the store, start both listeners. With
// GATEWAY_WORKERS > 1 this process is the cluster primary and the workers run this file again.
import cluster from 'node:cluster';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { buildGateway, type Gateway } from './app.js';
import { loadSettings, redactUrl, SettingsError, type Settings, type UpstreamSettings } from './config/settings.js';
import { upstreamVariable } from './config/upstream-settings.js';
import { describeUnknownVariables, unknownVariables } from './config/unknown-variables.js';
import { startEchoUpstream, type EchoUpstream } from './examples/echo-upstream.js';
import { PolicyError } from './policy/policy-loader.js';
import { obeyOrders } from './process/control.js';
import { drainTiming } from './process/drain.js';
import { checkAddressesFree, listenAt, listenerAddresses, listenGrpcAt, ListenError } from './process/listeners.js';
import { reportReady } from './process/messages.js';
import { writePidFile } from './process/pid-file.js';
import { superviseWorkers } from './process/workers.js';
import { describeRedis } from './store/redis-connection.js';
import { turnBufferedDestination } from './http/log-destination.js';
import { logFormatOptions } from './http/logging.js';

// Every logger of the process writes to standard output through it, a write per event-loop turn.
const logStream = turnBufferedDestination();
// Until the settings are read; then in their log format.
let log = pino({ name: 'gateway' }, logStream);

/** How long a starting instance waits for its store before it listens anyway, not ready. */
const STARTUP_READY_WAIT_MS = 3000;

/** The shipped upstreams, which forward to an example echo server in development when they have no URL. */
const EXAMPLE_UPSTREAMS = [
  ['public', 'PUBLIC_UPSTREAM'],
  ['banking', 'BANKING_UPSTREAM'],
] as const;

/** In development without GATEWAY_ADMIN_TOKEN, a token is generated once and kept in a 0600 file. */
function developmentAdminToken(settings: Settings): string {
  const file = join(settings.dataDir, 'admin-token');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(settings.dataDir, { recursive: true, mode: 0o700 });
  const token = randomBytes(32).toString('hex');
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return token;
}

/** Binds every listener, the public one once the store answers (or after a few seconds); on a failure closes what did bind. */
async function listen(gateway: Gateway, settings: Settings): Promise<void> {
  const addresses = listenerAddresses(settings);
  const address = (listener: string) => addresses.find((a) => a.listener === listener);
  try {
    await listenAt(gateway.adminApp, address('admin')!);
    // A load balancer sends a restarted instance traffic as soon as its public port opens: open it
    // once the store answers, so that a rolling restart answers nothing with 503. Without a store
    // after a few seconds, open it anyway (not ready: 503) and become ready when the store answers.
    for (const deadline = Date.now() + STARTUP_READY_WAIT_MS; !gateway.readiness.serving && Date.now() < deadline;) await sleep(20);
    await listenAt(gateway.publicApp, address('public')!);
    const decision = address('decision');
    if (gateway.decisionListener && decision) await listenAt(gateway.decisionListener, decision);
    const decisionGrpc = address('decision-grpc');
    if (gateway.decisionGrpc && decisionGrpc) await listenGrpcAt(gateway.decisionGrpc, decisionGrpc);
  } catch (error) {
    await gateway.close();
    throw error;
  }
}

async function main(): Promise<void> {
  // First, so that it shows even when the settings are refused (a misspelt variable may be why).
  const unknown = cluster.isPrimary ? unknownVariables(process.env) : [];
  if (unknown.length > 0) {
    log.warn({ event: 'unknown_variables', variables: unknown.map((u) => u.name) }, `ignored: no setting is named ${describeUnknownVariables(unknown)}`);
  }
  let settings = loadSettings();
  log = pino({ name: 'gateway', ...logFormatOptions(settings.logFormat) }, logStream);
  // Before anything starts: a port in use stops the start here, with nothing to close.
  if (cluster.isPrimary) await checkAddressesFree(listenerAddresses(settings));
  const examples: EchoUpstream[] = [];
  const filled: { adminToken?: string; upstreams?: Record<string, UpstreamSettings> } = {};
  if (!settings.adminToken) {
    filled.adminToken = developmentAdminToken(settings);
    log.warn({ file: join(settings.dataDir, 'admin-token') }, 'GATEWAY_ADMIN_TOKEN is unset: using the development admin token kept in this file');
  }
  // Production never falls back to an example: buildGateway refuses a policy naming an upstream without a URL.
  for (const [name, variable] of EXAMPLE_UPSTREAMS) {
    const upstream = settings.upstreams[name]!;
    if (upstream.url || settings.environment === 'production') continue;
    const echo = await startEchoUpstream(name);
    examples.push(echo);
    filled.upstreams = { ...settings.upstreams, ...filled.upstreams, [name]: { ...upstream, url: echo.url } };
    log.warn(
      { upstream: name, url: echo.url },
      `EXAMPLE upstream: neither ${variable} nor ${upstreamVariable(name)} is set, so requests to upstream ${name} go to a built-in echo server`,
    );
  }
  settings = Object.freeze({ ...settings, ...filled });
  const closeExamples = async (): Promise<void> => {
    await Promise.all(examples.map((e) => e.close()));
  };
  const timing = drainTiming(settings);

  if (settings.workers > 1 && cluster.isPrimary) {
    // The workers read their settings again; what was filled in here reaches them through the
    // environment (the example upstreams run in this process, shared by all workers).
    const exampleUrls =
      examples.length === 0 ? {} : Object.fromEntries(EXAMPLE_UPSTREAMS.map(([name]) => [upstreamVariable(name), filled.upstreams?.[name]?.url]));
    const env = { ...exampleUrls, GATEWAY_ADMIN_TOKEN: filled.adminToken };
    superviseWorkers(log, {
      workers: settings.workers,
      env: Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined)),
      // A worker's drain, its in-flight requests, then a margin to close the store.
      stopTimeoutMs: timing.drainMs + timing.finishMs + 5000,
      onStarted: () => {
        if (settings.pidFile) writePidFile(settings.pidFile);
      },
      afterStop: closeExamples,
    });
    return;
  }

  // Stays up while Redis is down (not ready); exits only when the Redis it reaches must not be used.
  const gateway = await buildGateway(settings, {
    logStream,
    onFatal: (message) => {
      log.fatal(message);
      process.exit(1);
    },
  });
  await listen(gateway, settings);
  obeyOrders(gateway, log, { timing, afterClose: closeExamples });
  // The pid file exists before "gateway started" is logged: whoever waits for that line can signal.
  if (cluster.isPrimary && settings.pidFile) writePidFile(settings.pidFile);
  log.info(
    {
      store: describeRedis(settings, redactUrl),
      routes: gateway.policy.current.routes.length,
      upstreams: Object.keys(settings.upstreams),
      public: settings.port,
      admin: settings.adminPort,
      decision: settings.decisionPort,
      decision_grpc: settings.decisionGrpcPort,
      tracing: settings.tracing
        ? {
            endpoint: redactUrl(settings.tracing.endpoint),
            protocol: settings.tracing.protocol,
            sampler: settings.tracing.sampler,
            ratio: settings.tracing.ratio,
          }
        : 'off',
    },
    cluster.isWorker ? 'worker started' : 'gateway started',
  );
  if (cluster.isWorker) {
    // Its start line out before the primary hears of it (and says, in a line of its own, that the gateway started).
    logStream.flush();
    reportReady();
  }
}

main().catch((error: unknown) => {
  if (error instanceof SettingsError || error instanceof PolicyError || error instanceof ListenError) {
    // For a person, not a log pipeline: each problem on its own line, a YAML excerpt with its caret as written.
    process.stderr.write(`gateway: not started:\n${error.message}\n`);
  } else {
    log.fatal({ err: error }, 'gateway failed to start');
  }
  process.exit(1);
});
