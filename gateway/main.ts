#!/usr/bin/env node
// Entry point of `npm start`: validate settings once, open the store, start both listeners.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pino from 'pino';
import { buildGateway } from './app.js';
import { loadSettings, redactUrl, SettingsError, type Settings } from './config/settings.js';
import { startEchoUpstream, type EchoUpstream } from './examples/echo-upstream.js';
import { PolicyError } from './policy/policy-loader.js';

const log = pino({ name: 'gateway' });

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
  for (const [key, name] of [['publicUpstream', 'public'], ['bankingUpstream', 'banking']] as const) {
    if (settings[key]) continue;
    const echo = await startEchoUpstream(name);
    examples.push(echo);
    filled[key] = echo.url;
    log.warn({ upstream: name, url: echo.url }, `EXAMPLE upstream: no ${name === 'public' ? 'PUBLIC_UPSTREAM' : 'BANKING_UPSTREAM'} is set, so requests go to a built-in echo server`);
  }
  settings = Object.freeze({ ...settings, ...filled });

  const gateway = await buildGateway(settings);
  await gateway.publicApp.listen({ host: settings.host, port: settings.port });
  await gateway.adminApp.listen({ host: settings.adminHost, port: settings.adminPort });
  log.info(
    { store: settings.redisUrl ? redactUrl(settings.redisUrl) : 'embedded', routes: gateway.policy.current.routes.length, public: settings.port, admin: settings.adminPort },
    'gateway started',
  );

  process.on('SIGHUP', () => {
    const result = gateway.reloadPolicy();
    if (result.ok) log.info({ routes: result.routes }, 'policy reloaded');
    else log.error({ error: result.error, routes: result.routes }, 'policy reload rejected; the running policy is kept');
  });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping: finishing in-flight requests');
    await gateway.close();
    await Promise.all(examples.map((e) => e.close()));
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  if (error instanceof SettingsError || error instanceof PolicyError) {
    log.fatal(error.message);
  } else {
    log.fatal({ err: error }, 'gateway failed to start');
  }
  process.exit(1);
});
