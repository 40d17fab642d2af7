#!/usr/bin/env node
// Entry point of `npm start`: validate settings once, open the store, start both listeners. With
// GATEWAY_WORKERS > 1 this process is the cluster primary and the workers run this file again.
import cluster from 'node:cluster';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { buildGateway } from './app.js';
import { loadSettings, redactUrl, SettingsError, type Settings } from './config/settings.js';
import { startEchoUpstream, type EchoUpstream } from './examples/echo-upstream.js';
import { PolicyError } from './policy/policy-loader.js';
import { obeyOrders } from './process/control.js';
import { drainTiming } from './process/drain.js';
import { reportReady } from './process/messages.js';
import { writePidFile } from './process/pid-file.js';
import { superviseWorkers } from './process/workers.js';
import { describeRedis } from './store/redis-connection.js';

const log = pino({ name: 'gateway' });

/** How long a starting instance waits for its store before it listens anyway, not ready. */
const STARTUP_READY_WAIT_MS = 3000;

/** In development without GATEWAY_ADMIN_TOKEN, a token is generated once and kept in a 0600 file. */
function developmentAdminToken(settings: Settings): string {
  const file = join(settings.dataDir, 'admin-token');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(settings.dataDir, { recursive: true, mode: 0o700 });
  const token = randomBytes(32).toString('hex');
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return token;
}

async function main(): Promise<void> {
  let settings = loadSettings();
  const examples: EchoUpstream[] = [];
  const filled: { -readonly [K in keyof Settings]?: Settings[K] } = {};
  if (!settings.adminToken) {
    filled.adminToken = developmentAdminToken(settings);
    log.warn({ file: join(settings.dataDir, 'admin-token') }, 'GATEWAY_ADMIN_TOKEN is unset: using the development admin token kept in this file');
  }
  // Only development reaches here without upstreams: settings validation refuses it in production.
  for (const [key, name] of [
    ['publicUpstream', 'public'],
    ['bankingUpstream', 'banking'],
  ] as const) {
    if (settings[key]) continue;
    const echo = await startEchoUpstream(name);
    examples.push(echo);
    filled[key] = echo.url;
    log.warn(
      { upstream: name, url: echo.url },
      `EXAMPLE upstream: no ${name === 'public' ? 'PUBLIC_UPSTREAM' : 'BANKING_UPSTREAM'} is set, so requests go to a built-in echo server`,
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
    const env = { PUBLIC_UPSTREAM: filled.publicUpstream, BANKING_UPSTREAM: filled.bankingUpstream, GATEWAY_ADMIN_TOKEN: filled.adminToken };
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
    onFatal: (message) => {
      log.fatal(message);
      process.exit(1);
    },
  });
  await gateway.adminApp.listen({ host: settings.adminHost, port: settings.adminPort });
  // A load balancer sends a restarted instance traffic as soon as its public port opens: open it
  // once the store answers, so that a rolling restart answers nothing with 503. Without a store
  // after a few seconds, open it anyway (not ready: 503) and become ready when the store answers.
  for (const deadline = Date.now() + STARTUP_READY_WAIT_MS; !gateway.readiness.serving && Date.now() < deadline;) await sleep(20);
  await gateway.publicApp.listen({ host: settings.host, port: settings.port });
  if (gateway.decisionApp && settings.decisionPort !== null) await gateway.decisionApp.listen({ host: settings.decisionHost, port: settings.decisionPort });
  obeyOrders(gateway, log, { timing, afterClose: closeExamples });
  // The pid file exists before "gateway started" is logged: whoever waits for that line can signal.
  if (cluster.isPrimary && settings.pidFile) writePidFile(settings.pidFile);
  log.info(
    {
      store: describeRedis(settings, redactUrl),
      routes: gateway.policy.current.routes.length,
      public: settings.port,
      admin: settings.adminPort,
      decision: settings.decisionPort,
    },
    cluster.isWorker ? 'worker started' : 'gateway started',
  );
  if (cluster.isWorker) reportReady();
}

main().catch((error: unknown) => {
  if (error instanceof SettingsError || error instanceof PolicyError) {
    log.fatal(error.message);
  } else {
    log.fatal({ err: error }, 'gateway failed to start');
  }
  process.exit(1);
});
