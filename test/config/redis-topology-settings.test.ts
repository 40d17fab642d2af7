// Redis topology settings: a URL, a Cluster or Sentinel, exactly one of them; production needs one;
// credentials and TLS options are validated without ever being echoed back.
import t, { type Test } from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { redactUrl, settingsFrom, SettingsError } from '../../gateway/config/settings.js';
import { describeRedis } from '../../gateway/store/redis-connection.js';

const PRODUCTION = {
  GATEWAY_ENV: 'production',
  PUBLIC_UPSTREAM: 'http://public.internal:9000',
  BANKING_UPSTREAM: 'https://banking.internal',
  GATEWAY_ADMIN_TOKEN: 'x'.repeat(32),
  GATEWAY_REQUIRE_REDIS_PERSISTENCE: 'false',
};

function refusal(t: Test, env: Record<string, string>, yaml: Record<string, unknown> = {}): string {
  try {
    settingsFrom(yaml, env);
  } catch (error) {
    t.type(error, SettingsError);
    return (error as Error).message;
  }
  t.fail('the settings were accepted');
  return '';
}

t.test('a Cluster: seed nodes parsed, no embedded store, no URL', async (t) => {
  const s = settingsFrom({}, { REDIS_CLUSTER_NODES: '10.0.0.1:7000, redis-b.internal:7001,[::1]:7002' });
  t.same(s.redisClusterNodes, [
    { host: '10.0.0.1', port: 7000 },
    { host: 'redis-b.internal', port: 7001 },
    { host: '::1', port: 7002 },
  ]);
  t.equal(s.redisUrl, undefined);
  t.equal(s.embeddedStorePath, undefined, 'a shared store: no embedded snapshot');
  t.same(settingsFrom({ redis_cluster_nodes: ['10.0.0.1:7000'] }).redisClusterNodes, [{ host: '10.0.0.1', port: 7000 }], 'a YAML list works too');
  t.equal(describeRedis(s, redactUrl), 'redis cluster 10.0.0.1:7000,redis-b.internal:7001,[::1]:7002');
});

t.test('Sentinel: sentinels and the master name, which is required with them', async (t) => {
  const s = settingsFrom({}, { REDIS_SENTINELS: 's1:26379,s2:26379,s3:26379', REDIS_SENTINEL_MASTER: 'gateway', REDIS_SENTINEL_PASSWORD: 'sentinel-secret' });
  t.same(s.redisSentinels.map((n) => n.host), ['s1', 's2', 's3']);
  t.equal(s.redisSentinelMaster, 'gateway');
  t.equal(s.redisSentinelPassword, 'sentinel-secret');
  t.equal(describeRedis(s, redactUrl), 'redis sentinel master gateway via s1:26379,s2:26379,s3:26379', 'the start log shows no password');
  t.match(refusal(t, { REDIS_SENTINELS: 's1:26379' }), 'Invalid setting redis_sentinel_master (config) / REDIS_SENTINEL_MASTER: is required with REDIS_SENTINELS');
  t.match(refusal(t, { REDIS_SENTINEL_MASTER: 'gateway' }), 'REDIS_SENTINEL_MASTER: applies only with REDIS_SENTINELS');
  t.match(refusal(t, { REDIS_URL: 'redis://r:6379', REDIS_SENTINEL_PASSWORD: 'p' }), 'REDIS_SENTINEL_PASSWORD: applies only with REDIS_SENTINELS');
});

t.test('two topologies at once stop the start, naming both settings', async (t) => {
  const both = refusal(t, { REDIS_URL: 'redis://r:6379', REDIS_CLUSTER_NODES: 'c:7000' });
  t.match(both, 'Invalid setting REDIS_URL and REDIS_CLUSTER_NODES');
  t.match(both, 'set exactly one of REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS');
  t.match(refusal(t, { REDIS_CLUSTER_NODES: 'c:7000', REDIS_SENTINELS: 's:26379', REDIS_SENTINEL_MASTER: 'm' }), 'REDIS_CLUSTER_NODES and REDIS_SENTINELS');
  t.match(refusal(t, {}, { redis_url: 'redis://r:6379', redis_sentinels: 's:26379', redis_sentinel_master: 'm' }), 'redis_url (config) / REDIS_URL and redis_sentinels (config) / REDIS_SENTINELS');
});

t.test('bad node lists name the setting and the entry', async (t) => {
  t.match(refusal(t, { REDIS_CLUSTER_NODES: 'c:7000,nonsense' }), 'REDIS_CLUSTER_NODES: "nonsense" is not host:port');
  t.match(refusal(t, { REDIS_CLUSTER_NODES: 'c:70000' }), '"c:70000" is not host:port');
  t.match(refusal(t, { REDIS_SENTINELS: 'redis://s:26379', REDIS_SENTINEL_MASTER: 'm' }), 'REDIS_SENTINELS: "redis://s:26379" is not host:port');
  t.match(refusal(t, { REDIS_CLUSTER_NODES: ' , ' }), 'REDIS_CLUSTER_NODES: must name at least one host:port');
  const withPassword = refusal(t, { REDIS_SENTINELS: 'redis://:hunter2hunter2@s:26379', REDIS_SENTINEL_MASTER: 'm' });
  t.match(withPassword, '"***@s:26379" is not host:port');
  t.notMatch(withPassword, 'hunter2', 'a password put in a node entry is not echoed');
});

t.test('production needs one of the three topologies', async (t) => {
  t.match(refusal(t, PRODUCTION), 'Invalid setting REDIS_URL: is required in production, or REDIS_CLUSTER_NODES, or REDIS_SENTINELS');
  t.equal(settingsFrom({}, { ...PRODUCTION, REDIS_CLUSTER_NODES: 'c:7000' }).environment, 'production');
  t.equal(settingsFrom({}, { ...PRODUCTION, REDIS_SENTINELS: 's:26379', REDIS_SENTINEL_MASTER: 'm' }).environment, 'production');
  t.equal(settingsFrom({}, { ...PRODUCTION, REDIS_URL: 'rediss://r:6380' }).environment, 'production');
});

t.test('credentials: never echoed, never in two places', async (t) => {
  const s = settingsFrom({}, { REDIS_CLUSTER_NODES: 'c:7000', REDIS_USERNAME: 'gateway', REDIS_PASSWORD: 'hunter2hunter2' });
  t.equal(s.redisUsername, 'gateway');
  t.equal(s.redisPassword, 'hunter2hunter2');
  const twice = refusal(t, { REDIS_URL: 'redis://:hunter2hunter2@r:6379', REDIS_PASSWORD: 'other-secret' });
  t.match(twice, 'REDIS_URL and REDIS_PASSWORD: both carry credentials');
  t.notMatch(twice, 'hunter2');
  t.notMatch(twice, 'other-secret');
  t.equal(settingsFrom({}, { REDIS_URL: 'redis://r:6379', REDIS_PASSWORD: 'p' }).redisPassword, 'p', 'a password beside a URL without one is fine');
});

t.test('TLS: a flag, and a CA file that must exist and needs TLS on', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'redis-tls-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const ca = join(dir, 'ca.pem');
  writeFileSync(ca, '-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n');
  const s = settingsFrom({}, { REDIS_CLUSTER_NODES: 'c:7000', REDIS_TLS: 'true', REDIS_TLS_CA_FILE: ca });
  t.equal(s.redisTls, true);
  t.equal(s.redisTlsCaFile, ca);
  t.match(refusal(t, { REDIS_TLS: 'yes' }), 'REDIS_TLS: must be true or false');
  t.match(refusal(t, { REDIS_CLUSTER_NODES: 'c:7000', REDIS_TLS: 'true', REDIS_TLS_CA_FILE: join(dir, 'missing.pem') }), 'REDIS_TLS_CA_FILE: file');
  t.match(refusal(t, { REDIS_CLUSTER_NODES: 'c:7000', REDIS_TLS_CA_FILE: ca }), 'REDIS_TLS_CA_FILE: applies only with REDIS_TLS=true or a rediss:// URL');
  t.equal(settingsFrom({}, { REDIS_URL: 'rediss://r:6380', REDIS_TLS_CA_FILE: ca }).redisTlsCaFile, ca, 'rediss:// turns TLS on by itself');
});

t.test('session cookies are Secure in production unless told otherwise', async (t) => {
  const production = { ...PRODUCTION, REDIS_URL: 'redis://r:6379' };
  t.equal(settingsFrom({}, production).cookieSecure, true);
  t.equal(settingsFrom({}, { ...production, GATEWAY_COOKIE_SECURE: 'false' }).cookieSecure, false, 'turned off explicitly (plain HTTP on a private network)');
  t.equal(settingsFrom({}, {}).cookieSecure, false, 'development: plain HTTP on localhost');
});
