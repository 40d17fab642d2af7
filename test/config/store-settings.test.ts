// The settings of the store's availability and durability (issue 8): command timeout, required
// persistence, the client-secret hashing key file; defaults and refusals naming the setting.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { settingsFrom, SettingsError } from '../../gateway/config/settings.js';

const PRODUCTION_ENV = {
  GATEWAY_ENV: 'production',
  REDIS_URL: 'redis://127.0.0.1:6379',
  PUBLIC_UPSTREAM: 'http://public.internal:9000',
  BANKING_UPSTREAM: 'https://banking.internal',
  GATEWAY_ADMIN_TOKEN: 'x'.repeat(32),
};

t.test('defaults: 250 ms commands; persistence required in production only; no key file', async (t) => {
  const development = settingsFrom({}, {});
  t.equal(development.redisCommandTimeoutMs, 250);
  t.equal(development.requireRedisPersistence, false);
  t.equal(development.clientSecretHashKeyFile, undefined);
  t.equal(settingsFrom({}, PRODUCTION_ENV).requireRedisPersistence, true);
  t.equal(settingsFrom({}, { ...PRODUCTION_ENV, GATEWAY_REQUIRE_REDIS_PERSISTENCE: 'false' }).requireRedisPersistence, false, 'production may opt out explicitly');
  t.equal(settingsFrom({ require_redis_persistence: true }, {}).requireRedisPersistence, true);
  t.equal(settingsFrom({}, { GATEWAY_REDIS_COMMAND_TIMEOUT_MS: '100' }).redisCommandTimeoutMs, 100);
});

t.test('refusals name the setting', async (t) => {
  t.throws(() => settingsFrom({}, { GATEWAY_REDIS_COMMAND_TIMEOUT_MS: '0' }), { name: 'SettingsError', message: /GATEWAY_REDIS_COMMAND_TIMEOUT_MS: must be between 10 and 10000/ });
  t.throws(() => settingsFrom({}, { GATEWAY_REDIS_COMMAND_TIMEOUT_MS: 'fast' }), SettingsError);
  t.throws(() => settingsFrom({}, { GATEWAY_REQUIRE_REDIS_PERSISTENCE: 'yes' }), { message: /GATEWAY_REQUIRE_REDIS_PERSISTENCE: must be true or false/ });
  t.throws(() => settingsFrom({}, { GATEWAY_CLIENT_SECRET_HASH_KEY_FILE: '/nonexistent/hash-key' }), { message: /GATEWAY_CLIENT_SECRET_HASH_KEY_FILE: \/nonexistent\/hash-key cannot be read: ENOENT/ });
});

t.test('the key file: hex or base64url, 32 bytes or more, resolved against the working directory', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hash-key-settings-'));
  const key = randomBytes(32);
  writeFileSync(join(dir, 'hex'), key.toString('hex'));
  writeFileSync(join(dir, 'b64'), `${key.toString('base64url')}\n`);
  t.equal(settingsFrom({ client_secret_hash_key_file: 'hex' }, {}, dir).clientSecretHashKeyFile, join(dir, 'hex'));
  t.equal(settingsFrom({}, { GATEWAY_CLIENT_SECRET_HASH_KEY_FILE: 'b64' }, dir).clientSecretHashKeyFile, join(dir, 'b64'));
  writeFileSync(join(dir, 'short'), randomBytes(31).toString('hex'));
  t.throws(() => settingsFrom({}, { GATEWAY_CLIENT_SECRET_HASH_KEY_FILE: 'short' }, dir), { message: /holds 31 bytes; at least 32 random bytes are required/ });
});
