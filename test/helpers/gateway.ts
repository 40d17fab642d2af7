// Builds a whole gateway for one test: real echo upstreams on port 0, its own Redis key prefix
// (or the embedded store), captured logs, and teardown registered on the test.
import { randomBytes } from 'node:crypto';
import type { Test } from 'tap';
import { buildGateway, type Gateway } from '../../gateway/app.js';
import { settingsFrom, type Settings } from '../../gateway/config/settings.js';
import { startEchoUpstream, type EchoUpstream } from '../../gateway/examples/echo-upstream.js';
import { openStore } from '../../gateway/store/open-store.js';
import type { CredentialStore } from '../../gateway/store/types.js';
import { LogCapture } from './log-capture.js';
import { REPO_ROOT } from './repo-root.js';
import { deleteKeysWithPrefix, TEST_REDIS_URL, uniquePrefix } from './redis.js';

export { REPO_ROOT } from './repo-root.js';

export interface TestGateway {
  gateway: Gateway;
  settings: Settings;
  adminToken: string;
  upstreams: { public: EchoUpstream; banking: EchoUpstream };
  logs: LogCapture;
  redisPrefix: string | undefined;
}

export interface TestGatewayOptions {
  /** YAML-style settings (keys as in config/gateway.yaml). */
  config?: Record<string, unknown>;
  store?: 'redis' | 'embedded';
  /** Reuse a Redis prefix (a second instance sharing the first one's state). */
  redisPrefix?: string;
  /** Puts something in front of the store the settings name (e.g. recordingStore); the test closes the store. */
  wrapStore?: (store: CredentialStore) => CredentialStore;
  /** Environment variables the settings read (e.g. OTEL_* for tracing); none by default. */
  env?: Record<string, string>;
}

function otherTopology(config: Record<string, unknown> | undefined): boolean {
  return config?.redis_cluster_nodes !== undefined || config?.redis_sentinels !== undefined;
}

export async function testSettings(
  options: TestGatewayOptions & { publicUpstream: string; bankingUpstream: string },
): Promise<{ settings: Settings; redisPrefix: string | undefined }> {
  const redisPrefix = options.store === 'embedded' ? undefined : (options.redisPrefix ?? uniquePrefix('gw'));
  const settings = settingsFrom(
    {
      admin_token: randomBytes(24).toString('hex'),
      public_upstream: options.publicUpstream,
      banking_upstream: options.bankingUpstream,
      issuer: 'http://gateway.test',
      policies_dir: `${REPO_ROOT}policies`,
      log_level: 'info',
      // A loaded CI machine can stall a process longer than the production default (250 ms) allows a
      // command: tests about slow or hung Redis set their own timeout, the others must not fail on a stall.
      redis_command_timeout_ms: 2000,
      // The shared test Redis, unless the config names a Cluster or Sentinel (test/helpers/redis-topology.ts).
      ...(redisPrefix ? { redis_key_prefix: redisPrefix, ...(otherTopology(options.config) ? {} : { redis_url: TEST_REDIS_URL }) } : {}),
      ...options.config,
    },
    options.env ?? {},
    REPO_ROOT,
  );
  // Tests never write the embedded store's snapshot file.
  return { settings: Object.freeze({ ...settings, embeddedStorePath: undefined }), redisPrefix };
}

export async function startTestGateway(t: Test, options: TestGatewayOptions = {}): Promise<TestGateway> {
  const upstreams = { public: await startEchoUpstream('public'), banking: await startEchoUpstream('banking') };
  const { settings, redisPrefix } = await testSettings({ ...options, publicUpstream: upstreams.public.url, bankingUpstream: upstreams.banking.url });
  const logs = new LogCapture();
  const closeUpstreams = async () => {
    await upstreams.public.close();
    await upstreams.banking.close();
  };
  let store: CredentialStore | undefined;
  let gateway: Gateway;
  try {
    store = options.wrapStore ? await openStore(settings) : undefined;
    gateway = await buildGateway(settings, { logStream: logs, ...(store ? { store: options.wrapStore!(store) } : {}) });
  } catch (error) {
    // Nothing may keep the test process alive after a failed start (it would wait for tap's timeout).
    await store?.close();
    await closeUpstreams();
    throw error;
  }
  t.teardown(async () => {
    await gateway.close();
    await store?.close();
    await closeUpstreams();
    // A shared prefix belongs to the test that created it.
    if (redisPrefix && !options.redisPrefix && !otherTopology(options.config)) await deleteKeysWithPrefix(redisPrefix);
  });
  return { gateway, settings, adminToken: settings.adminToken!, upstreams, logs, redisPrefix };
}
