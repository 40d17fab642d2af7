// Settings are read once at start from config/gateway.yaml (or GATEWAY_CONFIG) and the environment
// (and OpenTelemetry's OTEL_* variables for tracing: otel-variables.ts), validated, frozen, and
// passed to buildApp. Nothing else in the gateway reads process.env. Each setting is declared once,
// in setting-registry.ts; every problem found is reported in one error.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { TracingSettings } from '../tracing/tracing-settings.js';
import { closestName } from './closest-name.js';
import { readTracing } from './otel-variables.js';
import { usesRedis, type RedisConnectionSettings } from './redis-settings.js';
import { readRegistry, type Env, type Raw } from './setting-reader.js';
import { SETTINGS, type RegistryValues, type SettingName } from './setting-registry.js';
import { SETTING_RULES } from './setting-rules.js';
import { SettingsError, type SettingProblem } from './settings-error.js';
import { readUpstreams, type Upstreams } from './upstream-settings.js';

export { redactUrl } from './setting-kinds.js';
export { SettingsError, type SettingProblem } from './settings-error.js';
export type { DashboardUser } from './composite-kinds.js';
export type { UpstreamSettings, Upstreams } from './upstream-settings.js';
export {
  CLIENT_ASSERTION_ALGORITHMS,
  JWT_ALGORITHMS,
  NONCE_FAILOVER_GUARDS,
  OAUTH_ERROR_STYLES,
  OAUTH_PROFILES,
  type ClientAssertionAlgorithm,
  type JwtAlgorithm,
  type NonceFailoverGuard,
  type OAuthErrorStyle,
  type OAuthProfile,
} from './setting-registry.js';

/** The older settings of two upstreams' URLs: read into `upstreams`, not fields of their own. */
type UpstreamUrlSettings = 'publicUpstream' | 'bankingUpstream';

export type Settings = Readonly<Omit<RegistryValues, UpstreamUrlSettings | 'embeddedStorePath'>> & {
  /** Where the embedded store keeps its snapshot; undefined with Redis (and in memory only). */
  readonly embeddedStorePath: string | undefined;
  /** Every upstream by name: public and banking always, and each one the config file or a GATEWAY_UPSTREAM_<NAME> declares. */
  readonly upstreams: Upstreams;
  /** Tracing, from OpenTelemetry's own variables (otel-variables.ts); null: off. */
  readonly tracing: TracingSettings | null;
};

// The store reads its connection settings from Settings: they must stay the same shape (checked when this compiles).
const SETTINGS_CARRY_THE_REDIS_CONNECTION: RedisConnectionSettings = {} as Settings;
void SETTINGS_CARRY_THE_REDIS_CONNECTION;

/** Config keys that are not a setting of the registry. */
const OTHER_KEYS = ['upstreams'];

/** Each setting's config key and environment variable, in the registry's order (for generated references). */
export const SETTING_KEYS: ReadonlyArray<{ readonly name: SettingName; readonly yamlKey: string; readonly envName: string }> = (
  Object.keys(SETTINGS) as SettingName[]
).map((name) => ({ name, yamlKey: SETTINGS[name].key, envName: SETTINGS[name].env }));

/** Every environment variable that is a setting (deployment files are checked against it); GATEWAY_UPSTREAM_<NAME> besides. */
export const SETTING_ENV_NAMES: readonly string[] = SETTING_KEYS.map((s) => s.envName);

/** Keys of the config file that name no setting, each a problem (with the closest key, when one is close). */
function unknownKeys(yaml: Raw, file: string | undefined): SettingProblem[] {
  const known = [...SETTING_KEYS.map((s) => s.yamlKey), ...OTHER_KEYS];
  return Object.keys(yaml)
    .filter((key) => !known.includes(key))
    .map((key) => {
      const closest = closestName(key, known);
      return { setting: file ? `${key} (in ${file})` : `${key} (config)`, problem: `is not a known setting${closest ? ` (did you mean ${closest}?)` : ''}` };
    });
}

function readYaml(path: string): Raw {
  if (!existsSync(path)) return {};
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(path, 'utf8'));
  } catch (error) {
    // The parser's message ends with the line and a caret under the fault: kept as lines.
    throw new SettingsError(path, `is not valid YAML: ${(error as Error).message.trimEnd()}`);
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new SettingsError(path, 'must be a YAML mapping');
  return doc as Raw;
}

export interface LoadOptions {
  env?: NodeJS.ProcessEnv;
  /** The YAML file; default GATEWAY_CONFIG or config/gateway.yaml. */
  configFile?: string;
  cwd?: string;
}

export function loadSettings(options: LoadOptions = {}): Settings {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const file = resolve(cwd, options.configFile ?? env.GATEWAY_CONFIG ?? 'config/gateway.yaml');
  if (env.GATEWAY_CONFIG && !existsSync(file)) throw new SettingsError('GATEWAY_CONFIG', `file ${file} does not exist`);
  return settingsFrom(readYaml(file), env, cwd, file);
}

/** Builds settings from a YAML mapping and an environment (tests pass both directly); `file` names the mapping in messages. */
export function settingsFrom(yaml: Raw, env: Env = {}, cwd = process.cwd(), file?: string): Settings {
  const context = { cwd };
  const { values, problems } = readRegistry(SETTINGS, SETTING_RULES, yaml, env, context);
  const all = [...unknownKeys(yaml, file), ...problems];
  const upstreams = readUpstreams(
    {
      yaml,
      env,
      context,
      defaults: { timeoutMs: values.upstreamTimeoutMs, connections: values.upstreamConnections },
      shipped: [
        { name: 'public', setting: SETTINGS.publicUpstream, value: values.publicUpstream },
        { name: 'banking', setting: SETTINGS.bankingUpstream, value: values.bankingUpstream },
      ],
      settingVariables: new Set(SETTING_ENV_NAMES),
    },
    all,
  );
  const tracing = readTracing(env, all);
  if (all.length > 0) throw SettingsError.of(all);
  const { publicUpstream: _public, bankingUpstream: _banking, ...rest } = values;
  return Object.freeze({
    ...rest,
    // Any Redis is shared by all instances; the embedded store keeps its snapshot in data_dir.
    embeddedStorePath: usesRedis(values) ? undefined : resolve(values.dataDir, values.embeddedStorePath),
    upstreams,
    tracing,
  });
}
