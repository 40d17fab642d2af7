// The credential store as the gateway runs it: opened without waiting for it to answer, behind a
// circuit breaker, with the shared keys it holds and the readiness that follows from them.
// Nothing here makes the start fail when Redis is down; only a bad key file stops the start.
import { setTimeout as sleep } from 'node:timers/promises';
import pino, { type DestinationStream } from 'pino';
import { fdWriter } from '../http/fd-writer.js';
import { redactUrl, type Settings } from '../config/settings.js';
import type { GatewayMetrics } from '../metrics/metrics.js';
import { ClientSecretHasher } from '../oauth/client-secrets.js';
import { SigningKeys } from '../oauth/signing-keys.js';
import { StoreBreaker } from '../store/circuit-breaker.js';
import { guardStore } from '../store/guarded-store.js';
import { startStore } from '../store/open-store.js';
import { describeRedis } from '../store/redis-connection.js';
import type { CredentialStore } from '../store/types.js';
import { Readiness } from './readiness.js';
import { repairWhenUp } from './startup-repair.js';
import { reportStoreTransitions } from './store-transitions.js';
import { logFormatOptions } from '../http/logging.js';

export interface StoreRuntimeOptions {
  /** A store to use instead of the one the settings name (not closed with the runtime). */
  store?: CredentialStore | undefined;
  logStream?: DestinationStream | undefined;
  /** Production without the Redis persistence it requires: the process must stop (main.ts exits). */
  onFatal?: ((message: string) => void) | undefined;
}

export interface StoreRuntime {
  /** The guarded store: fails fast with StoreUnavailableError while the breaker is open. */
  readonly store: CredentialStore;
  readonly breaker: StoreBreaker;
  readonly hasher: ClientSecretHasher;
  readonly keys: SigningKeys;
  readonly readiness: Readiness;
  close(): Promise<void>;
}

/** ioredis's own connect timeout is 2 s; the first probe does not wait longer for the first connection. */
const FIRST_CONNECTION_WAIT_MS = 2500;

export async function openStoreRuntime(settings: Settings, options: StoreRuntimeOptions, metrics: GatewayMetrics): Promise<StoreRuntime> {
  const log = pino({ level: settings.logLevel, base: { component: 'store' }, ...logFormatOptions(settings.logFormat) }, options.logStream ?? fdWriter(1));
  const opened = options.store ? { store: options.store, connecting: Promise.resolve() } : startStore(settings);
  // The first probe waits for the first connection attempt, and reports its error (the real reason, e.g. ECONNREFUSED).
  let firstConnection: Promise<Error | undefined> | undefined = opened.connecting.then(
    () => undefined,
    (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
  );
  const breaker = new StoreBreaker({
    probe: async () => {
      if (firstConnection) {
        const failure = await Promise.race([firstConnection, sleep(FIRST_CONNECTION_WAIT_MS, undefined, { ref: false })]);
        firstConnection = undefined;
        if (failure) throw failure;
      }
      await opened.store.ping();
    },
  });
  const address = describeRedis(settings, redactUrl);
  reportStoreTransitions(breaker, log, metrics, address, opened.store.nodes);
  // Only on a store of its own: a store handed in (tests) is checked by whoever made it.
  const stopRepair = options.store ? () => {} : repairWhenUp(breaker, opened.store, log);
  const store = guardStore(opened.store, breaker, metrics.stages.store);
  const hasher = ClientSecretHasher.create(store, settings, log);
  const keys = SigningKeys.create(store, settings, { log });
  const close = async () => {
    stopRepair();
    readiness.close();
    breaker.close();
    hasher.close();
    keys.close();
    if (!options.store) await opened.store.close();
  };
  const readiness = new Readiness({
    breaker,
    storeAddress: address,
    store,
    hasher,
    keys,
    requirePersistence: settings.requireRedisPersistence,
    production: settings.environment === 'production',
    log,
    onFatal: options.onFatal,
  });
  try {
    // A key file is read now (a bad one stops the start with a message naming the setting); the
    // store's keys once it answers.
    if (settings.jwtSigningKeyFile) await keys.load();
    await readiness.start();
  } catch (error) {
    await close();
    throw error;
  }
  return { store, breaker, hasher, keys, readiness, close };
}
