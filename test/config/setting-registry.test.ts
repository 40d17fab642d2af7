// The registry declares each setting once: its key, its variable, its kind and default. What follows
// from it is checked here: defaults fit their own kinds, names are unique, the shipped config file
// (generated from it) reads to the defaults, and unknown GATEWAY_* variables are named with the
// setting they most likely meant.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { parse as parseYaml } from 'yaml';
import { closestName, editDistance } from '../../gateway/config/closest-name.js';
import { isComputed } from '../../gateway/config/setting-declaration.js';
import { SETTINGS, type SettingName } from '../../gateway/config/setting-registry.js';
import { settingsFrom, SETTING_ENV_NAMES, SETTING_KEYS } from '../../gateway/config/settings.js';
import { describeUnknownVariables, unknownVariables } from '../../gateway/config/unknown-variables.js';
import { REPO_ROOT } from '../helpers/gateway.js';

t.test('each config key and each variable names one setting', async (t) => {
  t.equal(new Set(SETTING_KEYS.map((s) => s.yamlKey)).size, SETTING_KEYS.length, 'keys are unique');
  t.equal(new Set(SETTING_ENV_NAMES).size, SETTING_ENV_NAMES.length, 'variables are unique');
  for (const { yamlKey, envName } of SETTING_KEYS) {
    t.match(yamlKey, /^[a-z][a-z0-9_]*$/, `${yamlKey}: snake_case`);
    t.match(envName, /^[A-Z][A-Z0-9_]*$/, `${envName}: upper-case`);
  }
});

t.test('every static default fits its own kind, and a computed one says what it is', async (t) => {
  for (const name of Object.keys(SETTINGS) as SettingName[]) {
    const setting = SETTINGS[name];
    t.ok(setting.description.endsWith('.'), `${name}: described in a sentence`);
    if (isComputed(setting.default)) t.ok(setting.shownDefault, `${name}: its computed default is described`);
    else if (setting.default !== undefined) t.doesNotThrow(() => setting.kind.parse(setting.default, { cwd: '/srv/gw' }), `${name}: its default fits`);
  }
});

t.test('the defaults that follow other settings follow them', async (t) => {
  const s = settingsFrom({}, { GATEWAY_PORT: '9000', GATEWAY_REQUEST_TIMEOUT_MS: '4000', GATEWAY_THROTTLE_MAX_FAILURES: '600', GATEWAY_ENV: 'production', REDIS_CLUSTER_NODES: 'c:7000', GATEWAY_ADMIN_TOKEN: 'x'.repeat(32) });
  t.equal(s.issuer, 'http://localhost:9000');
  t.equal(s.audience, 'http://localhost:9000');
  t.equal(s.headersTimeoutMs, 4000);
  t.equal(s.throttleMaxFailuresPerAddress, 600);
  t.equal(s.throttleMaxFailuresPerCredential, 1200);
  t.equal(s.requireRedisPersistence, true);
  t.equal(s.redisAckReplicas, 1);
  t.equal(s.redisNonceFailover, 'fence');
});

/** The shipped file with every `# key: value` line (and the upstreams example) uncommented. */
function uncommented(text: string): { yaml: Record<string, unknown>; examples: string[] } {
  const lines: string[] = [];
  const examples: string[] = [];
  for (const line of text.split('\n')) {
    const setting = /^# ([a-z][a-z0-9_]*): (\S.*?)\s+# (\S+)(.*)$/.exec(line);
    if (setting) {
      if (setting[4]!.includes('an example')) examples.push(setting[1]!);
      else lines.push(`${setting[1]}: ${setting[2]}`);
    }
  }
  return { yaml: parseYaml(lines.join('\n')) as Record<string, unknown>, examples };
}

t.test('config/gateway.yaml, every value uncommented, reads to the defaults', async (t) => {
  const text = readFileSync(`${REPO_ROOT}config/gateway.yaml`, 'utf8');
  t.same(parseYaml(text), null, 'shipped with every line commented out');
  const { yaml, examples } = uncommented(text);
  t.ok(Object.keys(yaml).length > 30, `${Object.keys(yaml).length} values shown`);
  t.same(settingsFrom(yaml, {}, '/srv/gw'), settingsFrom({}, {}, '/srv/gw'), 'each value shown is the default');
  t.ok(examples.includes('redis_url') && examples.includes('decision_port'), 'examples are marked as such');
  const upstreams = /^# upstreams:.*\n((?:# {3}.*\n)+)/m.exec(text);
  t.ok(upstreams, 'the upstreams example is there');
  const example = parseYaml(`upstreams:\n${upstreams![1]!.replace(/^# /gm, '')}`) as Record<string, unknown>;
  t.same(Object.keys(settingsFrom(example, {}, '/srv/gw').upstreams), ['public', 'banking', 'ledger-v2'], 'and reads');
});

t.test('unknown GATEWAY_* variables: each named once, with the setting it most likely meant', async (t) => {
  const unknown = unknownVariables({
    GATEWAY_SIGNATURE_WINDOW: '60',
    GATEWAY_ADMN_PORT: '1',
    GATEWAY_FOO: 'x',
    GATEWAY_PORT: '8080',
    GATEWAY_CONFIG: 'a.yaml',
    GATEWAY_ADMIN_URL: 'http://127.0.0.1:8081',
    GATEWAY_UPSTREAM_LEDGER: 'http://ledger',
    REDIS_URLL: 'x',
  });
  t.same(unknown, [
    { name: 'GATEWAY_ADMN_PORT', closest: 'GATEWAY_ADMIN_PORT' },
    { name: 'GATEWAY_FOO', closest: undefined },
    { name: 'GATEWAY_SIGNATURE_WINDOW', closest: 'GATEWAY_SIGNATURE_WINDOW_SECONDS' },
  ]);
  t.equal(
    describeUnknownVariables(unknown),
    'GATEWAY_ADMN_PORT (did you mean GATEWAY_ADMIN_PORT?), GATEWAY_FOO, GATEWAY_SIGNATURE_WINDOW (did you mean GATEWAY_SIGNATURE_WINDOW_SECONDS?)',
  );
});

t.test('the closest name: a few edits, or a word more or less', async (t) => {
  t.equal(editDistance('prot', 'port'), 1, 'two neighbours swapped are one edit');
  t.equal(editDistance('kitten', 'sitting'), 3);
  t.equal(editDistance('', 'abc'), 3);
  t.equal(closestName('prot', ['port', 'host']), 'port');
  t.equal(closestName('GATEWAY_TOKEN_TTL', SETTING_ENV_NAMES), 'GATEWAY_TOKEN_TTL_SECONDS', 'a unit left out');
  t.equal(closestName('GATEWAY_LOGLEVEL', SETTING_ENV_NAMES), 'GATEWAY_LOG_LEVEL');
  t.equal(closestName('GATEWAY_TIMEOUT', SETTING_ENV_NAMES), undefined, 'nothing close enough');
});
