// Settings: config/*.yaml overridden by environment variables, validated once; an invalid value
// stops the start with a message naming the setting.
import t, { type Test } from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildGateway } from '../../gateway/app.js';
import { loadSettings, settingsFrom, SettingsError } from '../../gateway/config/settings.js';
import { REPO_ROOT } from '../helpers/gateway.js';

const TOKEN = 'x'.repeat(32);
const PRODUCTION_ENV = {
  GATEWAY_ENV: 'production',
  REDIS_URL: 'redis://127.0.0.1:6379',
  PUBLIC_UPSTREAM: 'http://public.internal:9000',
  BANKING_UPSTREAM: 'https://banking.internal',
  GATEWAY_ADMIN_TOKEN: TOKEN,
};

/** Asserts that building settings fails with a SettingsError whose message contains every fragment. */
function refuses(t: Test, build: () => unknown, ...fragments: (string | RegExp)[]): void {
  let caught: unknown;
  try {
    build();
  } catch (error) {
    caught = error;
  }
  t.type(caught, SettingsError, `refused: ${fragments.map(String).join(' | ')}`);
  const message = (caught as Error | undefined)?.message ?? '';
  for (const fragment of fragments) t.match(message, fragment, `the message names ${String(fragment)}`);
}

t.test('defaults for a development start', async (t) => {
  const s = settingsFrom({}, {}, '/srv/gw');
  t.equal(s.environment, 'development');
  t.equal(s.port, 8080);
  t.equal(s.adminPort, 8081);
  t.equal(s.adminHost, '127.0.0.1');
  t.equal(s.redisUrl, undefined);
  t.equal(s.embeddedStorePath, '/srv/gw/.gateway/embedded-store.json');
  t.equal(s.issuer, 'http://localhost:8080');
  t.equal(s.audience, 'http://localhost:8080');
  t.equal(s.tokenTtlSeconds, 86400);
  t.same(s.jwtAllowedAlgorithms, ['EdDSA']);
  t.equal(s.jwtSigningAlgorithm, 'EdDSA');
  t.same(s.trustedProxies, []);
  t.equal(s.policiesDir, '/srv/gw/policies');
  t.ok(Object.isFrozen(s), 'settings are frozen');
});

t.test('environment variables override YAML', async (t) => {
  const yaml = { port: 9000, admin_port: 9001, issuer: 'https://auth.example.com/', trusted_proxies: ['10.0.0.0/8'] };
  const s = settingsFrom(yaml, { GATEWAY_PORT: '9100', GATEWAY_TRUSTED_PROXIES: '192.168.0.0/16, 2001:db8::/32' });
  t.equal(s.port, 9100);
  t.equal(s.adminPort, 9001);
  t.equal(s.issuer, 'https://auth.example.com', 'a trailing slash is dropped from the issuer');
  t.same(s.trustedProxies.map((c) => c.text), ['192.168.0.0/16', '2001:db8::/32']);
  t.equal(settingsFrom({ port: 9000 }, { GATEWAY_PORT: '' }).port, 9000, 'an empty variable does not override');
});

t.test('a valid production configuration', async (t) => {
  const s = settingsFrom({}, PRODUCTION_ENV);
  t.equal(s.environment, 'production');
  t.equal(s.redisUrl, 'redis://127.0.0.1:6379');
  t.equal(s.embeddedStorePath, undefined, 'no snapshot file with Redis');
  t.equal(s.adminToken, TOKEN);
});

t.test('bad port', async (t) => {
  refuses(t, () => settingsFrom({}, { GATEWAY_PORT: '80a' }), 'GATEWAY_PORT', 'whole number');
  refuses(t, () => settingsFrom({}, { GATEWAY_PORT: '-1' }), 'GATEWAY_PORT');
  refuses(t, () => settingsFrom({ port: 70000 }, {}), 'port (config) / GATEWAY_PORT', 'between 0 and 65535');
  refuses(t, () => settingsFrom({ admin_port: 80.5 }, {}), 'admin_port (config) / GATEWAY_ADMIN_PORT');
  refuses(t, () => settingsFrom({}, { GATEWAY_UPSTREAM_TIMEOUT_MS: '10' }), 'GATEWAY_UPSTREAM_TIMEOUT_MS', 'between 100');
});

t.test('bad URL', async (t) => {
  refuses(t, () => settingsFrom({}, { PUBLIC_UPSTREAM: 'not a url' }), 'PUBLIC_UPSTREAM', 'must be a URL');
  refuses(t, () => settingsFrom({}, { BANKING_UPSTREAM: 'ftp://files.internal' }), 'BANKING_UPSTREAM', 'http: or https:');
  refuses(t, () => settingsFrom({ redis_url: 'http://127.0.0.1:6379' }, {}), 'redis_url (config) / REDIS_URL', 'redis: or rediss:');
  refuses(t, () => settingsFrom({}, { GATEWAY_ISSUER: 'auth.example.com' }), 'GATEWAY_ISSUER');
});

t.test('a bad URL with a password is reported without the password', async (t) => {
  let message = '';
  try {
    settingsFrom({}, { REDIS_URL: 'redis://:hunter2hunter2@bad host:6379' });
  } catch (error) {
    message = (error as Error).message;
  }
  t.match(message, 'REDIS_URL');
  t.notMatch(message, 'hunter2');
});

t.test('short admin token', async (t) => {
  refuses(t, () => settingsFrom({}, { GATEWAY_ADMIN_TOKEN: 'short' }), 'GATEWAY_ADMIN_TOKEN', 'at least 32 characters');
  refuses(t, () => settingsFrom({ admin_token: 'x'.repeat(31) }, {}), 'admin_token (config) / GATEWAY_ADMIN_TOKEN');
});

t.test('production requires Redis, both upstreams and an admin token', async (t) => {
  for (const missing of ['REDIS_URL', 'GATEWAY_ADMIN_TOKEN'] as const) {
    const env: Record<string, string> = { ...PRODUCTION_ENV };
    delete env[missing];
    refuses(t, () => settingsFrom({}, env), missing, 'required in production');
  }
  // The upstreams are required because the shipped policies route to them: the start (buildGateway) refuses.
  for (const missing of ['PUBLIC_UPSTREAM', 'BANKING_UPSTREAM'] as const) {
    const env: Record<string, string> = { ...PRODUCTION_ENV };
    delete env[missing];
    const settings = settingsFrom({ policies_dir: `${REPO_ROOT}policies` }, env);
    await t.rejects(buildGateway(settings), { name: 'SettingsError', message: new RegExp(`Invalid setting ${missing}: is required in production`) }, missing);
  }
  t.equal(settingsFrom({}, { GATEWAY_ENV: 'development' }).redisUrl, undefined, 'development does without them');
  refuses(t, () => settingsFrom({}, { GATEWAY_ENV: 'staging' }), 'GATEWAY_ENV', 'development, production');
});

t.test('every invalid or missing setting is reported at once, each by its name', async (t) => {
  let caught: unknown;
  try {
    settingsFrom({ admin_port: 'x', log_level: 'loud' }, { GATEWAY_ENV: 'production', GATEWAY_PORT: '70000', GATEWAY_TRUSTED_PROXIES: '10.0.0.1/8' });
  } catch (error) {
    caught = error;
  }
  t.type(caught, SettingsError);
  const error = caught as SettingsError;
  t.same(
    error.problems.map((p) => p.setting),
    ['GATEWAY_PORT', 'admin_port (config) / GATEWAY_ADMIN_PORT', 'log_level (config) / GATEWAY_LOG_LEVEL', 'GATEWAY_TRUSTED_PROXIES', 'GATEWAY_ADMIN_TOKEN', 'REDIS_URL'],
  );
  t.equal(error.message.split('\n').length, 6, 'one line per problem');
  for (const line of error.message.split('\n')) t.match(line, /^Invalid setting \S.*: \S/, line);
  t.equal(error.setting, 'GATEWAY_PORT', 'the first problem names the error');
});

t.test('a rule across settings is left out when one of its settings is invalid itself', async (t) => {
  // The throttle ceilings compare three values: with one unreadable, only that one is reported.
  const error = t.throws(() => settingsFrom({}, { GATEWAY_THROTTLE_MAX_FAILURES: 'ten', GATEWAY_THROTTLE_MAX_FAILURES_PER_CREDENTIAL: '5' })) as SettingsError;
  t.same(
    error.problems.map((p) => p.setting),
    ['GATEWAY_THROTTLE_MAX_FAILURES'],
  );
});

t.test('bad CIDR in trusted proxies', async (t) => {
  refuses(t, () => settingsFrom({}, { GATEWAY_TRUSTED_PROXIES: '10.0.0.0/33' }), 'GATEWAY_TRUSTED_PROXIES', 'prefix');
  refuses(t, () => settingsFrom({ trusted_proxies: ['010.0.0.1'] }, {}), 'trusted_proxies (config) / GATEWAY_TRUSTED_PROXIES', '010.0.0.1');
  refuses(t, () => settingsFrom({}, { GATEWAY_TRUSTED_PROXIES: '10.0.0.0/8,proxy.internal' }), 'GATEWAY_TRUSTED_PROXIES', 'proxy.internal');
  // Host bits set: refused, never masked (10.0.0.1/0 would have trusted every address).
  refuses(
    t,
    () => settingsFrom({}, { GATEWAY_TRUSTED_PROXIES: '192.0.2.0/24,10.0.0.1/0' }),
    'Invalid setting GATEWAY_TRUSTED_PROXIES: "10.0.0.1/0" has host bits set; the network is 0.0.0.0/0 — write that, or 10.0.0.1/32 for the single address',
  );
  refuses(t, () => settingsFrom({ trusted_proxies: ['::ffff:192.0.2.10/120'] }, {}), 'trusted_proxies (config) / GATEWAY_TRUSTED_PROXIES', 'the network is 192.0.2.0/24');
});

t.test('algorithm not allowed', async (t) => {
  refuses(t, () => settingsFrom({ jwt_allowed_algorithms: ['EdDSA', 'HS256'] }, {}), 'jwt_allowed_algorithms (config) / GATEWAY_JWT_ALLOWED_ALGORITHMS', '"HS256"');
  refuses(t, () => settingsFrom({}, { GATEWAY_JWT_ALLOWED_ALGORITHMS: 'none' }), 'GATEWAY_JWT_ALLOWED_ALGORITHMS', '"none"');
  refuses(t, () => settingsFrom({}, { GATEWAY_JWT_SIGNING_ALGORITHM: 'RS256' }), 'GATEWAY_JWT_SIGNING_ALGORITHM', 'not in the allowed algorithms');
  refuses(t, () => settingsFrom({}, { GATEWAY_JWT_SIGNING_ALGORITHM: 'HS256' }), 'GATEWAY_JWT_SIGNING_ALGORITHM', 'must be one of');
  const s = settingsFrom({}, { GATEWAY_JWT_ALLOWED_ALGORITHMS: 'EdDSA,ES256', GATEWAY_JWT_SIGNING_ALGORITHM: 'ES256' });
  t.same(s.jwtAllowedAlgorithms, ['EdDSA', 'ES256']);
});

t.test('other invalid values name their setting', async (t) => {
  refuses(t, () => settingsFrom({}, { GATEWAY_LOG_LEVEL: 'loud' }), 'GATEWAY_LOG_LEVEL');
  refuses(t, () => settingsFrom({ host: ['a'] }, {}), 'host (config) / GATEWAY_HOST', 'must be a string');
  refuses(t, () => settingsFrom({}, { GATEWAY_COOKIE_SECURE: 'yes' }), 'GATEWAY_COOKIE_SECURE');
  refuses(t, () => settingsFrom({}, { GATEWAY_JWT_SIGNING_KEY_FILE: '/nonexistent/keys.json' }), 'GATEWAY_JWT_SIGNING_KEY_FILE', 'does not exist');
});

t.test('loadSettings reads the YAML file', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-config-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'gateway.yaml');

  writeFileSync(file, 'port: 9300\nadmin_port: 9301\n');
  const s = loadSettings({ configFile: file, env: { GATEWAY_ADMIN_PORT: '9302' }, cwd: dir });
  t.equal(s.port, 9300);
  t.equal(s.adminPort, 9302);

  writeFileSync(file, 'port: 9300\nprot: 9301\n');
  refuses(t, () => loadSettings({ configFile: file, env: {}, cwd: dir }), 'prot', file, 'is not a known setting');
  refuses(t, () => loadSettings({ configFile: file, env: {}, cwd: dir }), 'is not a known setting (did you mean port?)');

  writeFileSync(file, 'port: [9300\n');
  refuses(t, () => loadSettings({ configFile: file, env: {}, cwd: dir }), file, 'not valid YAML');
  refuses(t, () => loadSettings({ configFile: file, env: {}, cwd: dir }), /\nport: \[9300\n\s*\^/);

  writeFileSync(file, '- port\n');
  refuses(t, () => loadSettings({ configFile: file, env: {}, cwd: dir }), file, 'mapping');

  writeFileSync(file, 'port: abc\n');
  refuses(t, () => loadSettings({ configFile: file, env: {}, cwd: dir }), 'port (config) / GATEWAY_PORT');

  refuses(t, () => loadSettings({ env: { GATEWAY_CONFIG: join(dir, 'missing.yaml') }, cwd: dir }), 'GATEWAY_CONFIG', 'does not exist');

  writeFileSync(join(dir, 'other.yaml'), 'admin_port: 9400\n');
  t.equal(loadSettings({ env: { GATEWAY_CONFIG: 'other.yaml' }, cwd: dir }).adminPort, 9400, 'GATEWAY_CONFIG names the file');
});

t.test('the shipped config/gateway.yaml is valid', async (t) => {
  const s = loadSettings({ env: {}, cwd: REPO_ROOT });
  t.equal(s.port, 8080);
  t.equal(s.adminPort, 8081);
  t.equal(s.redisKeyPrefix, 'gateway:');
  t.equal(s.throttleMaxFailures, 10);
});

t.test('the decision listener: off by default, on loopback when given a port, and only with trusted proxies', async (t) => {
  const off = settingsFrom({}, {}, '/srv/gw');
  t.equal(off.decisionPort, null);
  const on = settingsFrom({}, { GATEWAY_DECISION_PORT: '8082', GATEWAY_TRUSTED_PROXIES: '127.0.0.1/32' }, '/srv/gw');
  t.equal(on.decisionPort, 8082);
  t.equal(on.decisionHost, '127.0.0.1');
  refuses(t, () => settingsFrom({}, { GATEWAY_DECISION_PORT: '8082' }, '/srv/gw'), 'GATEWAY_DECISION_PORT', 'needs GATEWAY_TRUSTED_PROXIES');
  refuses(t, () => settingsFrom({}, { GATEWAY_DECISION_PORT: 'eighty', GATEWAY_TRUSTED_PROXIES: '127.0.0.1/32' }, '/srv/gw'), 'GATEWAY_DECISION_PORT', 'must be a whole number');
});

t.test('the gRPC decision listener: off by default, beside the HTTP one on its host, only with trusted proxies, with a bounded deadline', async (t) => {
  const off = settingsFrom({}, {}, '/srv/gw');
  t.equal(off.decisionGrpcPort, null);
  t.equal(off.decisionGrpcDeadlineMs, 2000);
  const on = settingsFrom({}, { GATEWAY_DECISION_GRPC_PORT: '8083', GATEWAY_TRUSTED_PROXIES: '127.0.0.1/32', GATEWAY_DECISION_GRPC_DEADLINE_MS: '500' }, '/srv/gw');
  t.equal(on.decisionGrpcPort, 8083);
  t.equal(on.decisionPort, null, 'without the HTTP decision listener');
  t.equal(on.decisionHost, '127.0.0.1');
  t.equal(on.decisionGrpcDeadlineMs, 500);
  refuses(t, () => settingsFrom({}, { GATEWAY_DECISION_GRPC_PORT: '8083' }, '/srv/gw'), 'GATEWAY_DECISION_GRPC_PORT', 'needs GATEWAY_TRUSTED_PROXIES');
  refuses(
    t,
    () => settingsFrom({}, { GATEWAY_DECISION_GRPC_PORT: '8083', GATEWAY_TRUSTED_PROXIES: '127.0.0.1/32', GATEWAY_DECISION_GRPC_DEADLINE_MS: '0' }, '/srv/gw'),
    'GATEWAY_DECISION_GRPC_DEADLINE_MS',
    'must be between 10 and 60000',
  );
});

t.test('a bare decision_port: in the YAML leaves the decision listener off', async (t) => {
  t.equal(settingsFrom({ decision_port: null }, {}, '/srv/gw').decisionPort, null);
  t.equal(settingsFrom({ decision_port: '' }, {}, '/srv/gw').decisionPort, null);
});
