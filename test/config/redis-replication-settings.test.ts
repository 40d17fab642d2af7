// What a change and a used nonce must reach before they count: one replica and the failover fence
// by default on a Sentinel or Cluster (whose replicas may be promoted), nothing on a single server;
// bounded, and refused when they contradict each other.
import t from 'tap';
import { settingsFrom, SettingsError } from '../../gateway/config/settings.js';

t.test('defaults follow the topology', async (t) => {
  const single = settingsFrom({}, { REDIS_URL: 'redis://r:6379' });
  t.match(single, { redisAckReplicas: 0, redisAckTimeoutMs: 500, redisNonceFailover: 'off' }, 'one server: nothing to wait for');
  const cluster = settingsFrom({}, { REDIS_CLUSTER_NODES: 'c:7000' });
  t.match(cluster, { redisAckReplicas: 1, redisAckTimeoutMs: 500, redisNonceFailover: 'fence' }, 'a Cluster: one replica, and the fence');
  const sentinel = settingsFrom({}, { REDIS_SENTINELS: 's:26379', REDIS_SENTINEL_MASTER: 'm' });
  t.match(sentinel, { redisAckReplicas: 1, redisNonceFailover: 'fence' }, 'Sentinel likewise');
  t.match(settingsFrom({}, {}), { redisAckReplicas: 0, redisNonceFailover: 'off' }, 'the embedded store: one process, nothing to replicate');
});

t.test('set explicitly, from the environment or the file; bounded', async (t) => {
  t.match(settingsFrom({ redis_ack_replicas: 2, redis_ack_timeout_ms: 250 }, { REDIS_CLUSTER_NODES: 'c:7000', GATEWAY_REDIS_NONCE_FAILOVER: 'wait' }), { redisAckReplicas: 2, redisAckTimeoutMs: 250, redisNonceFailover: 'wait' });
  t.match(settingsFrom({}, { REDIS_URL: 'redis://r:6379', GATEWAY_REDIS_ACK_REPLICAS: '1' }), { redisAckReplicas: 1 }, 'a single server with a replica may ask for it');
  t.throws(() => settingsFrom({}, { GATEWAY_REDIS_ACK_REPLICAS: '17' }), new SettingsError('GATEWAY_REDIS_ACK_REPLICAS', 'must be between 0 and 16, got 17'));
  t.throws(() => settingsFrom({}, { GATEWAY_REDIS_ACK_TIMEOUT_MS: '5' }), /GATEWAY_REDIS_ACK_TIMEOUT_MS: must be between 10 and 10000/);
  t.throws(() => settingsFrom({}, { GATEWAY_REDIS_ACK_TIMEOUT_MS: '60000' }), /must be between 10 and 10000/, 'a change never waits long for its replicas');
  t.throws(() => settingsFrom({}, { GATEWAY_REDIS_NONCE_FAILOVER: 'sometimes' }), /GATEWAY_REDIS_NONCE_FAILOVER: must be one of fence, wait, off/);
});

t.test('waiting for replicas per nonce needs replicas to wait for', async (t) => {
  t.throws(() => settingsFrom({}, { REDIS_URL: 'redis://r:6379', GATEWAY_REDIS_NONCE_FAILOVER: 'wait' }), /GATEWAY_REDIS_NONCE_FAILOVER: wait needs GATEWAY_REDIS_ACK_REPLICAS of at least 1/);
  t.throws(() => settingsFrom({}, { REDIS_CLUSTER_NODES: 'c:7000', GATEWAY_REDIS_ACK_REPLICAS: '0', GATEWAY_REDIS_NONCE_FAILOVER: 'wait' }), SettingsError);
});
