// Reads a registry of settings from the config file (YAML) and the environment, the environment
// winning. A value that does not fit its kind is a problem; a default that follows other settings is
// read on demand; the rules across settings run last. Every problem is collected, not just the first.
import { isComputed, type Setting, type SettingRule, type ValuesOf } from './setting-declaration.js';
import { isGiven, ValueProblem, type ReadContext } from './setting-kinds.js';
import type { SettingProblem } from './settings-error.js';

export type Raw = Record<string, unknown>;
export type Env = Readonly<Record<string, string | undefined>>;

export interface RegistryRead<R> {
  readonly values: ValuesOf<R>;
  readonly problems: readonly SettingProblem[];
  /** Where a setting's value came from: its variable if the environment set it, else "key (config) / VARIABLE". */
  label(name: keyof R & string): string;
}

export function readRegistry<R extends Record<string, Setting<unknown>>>(
  registry: R,
  rules: readonly SettingRule<ValuesOf<R>>[],
  yaml: Raw,
  env: Env,
  context: ReadContext,
): RegistryRead<R> {
  type Name = keyof R & string;
  const names = Object.keys(registry) as Name[];
  const values = new Map<Name, unknown>();
  const failed = new Set<Name>();
  const reading = new Set<Name>();
  const problems: SettingProblem[] = [];

  const label = (name: Name) => {
    const { key, env: variable } = registry[name]!;
    return isGiven(env[variable]) ? variable : `${key} (config) / ${variable}`;
  };
  // Defaults that follow other settings read them through this view, in whatever order they are declared.
  const view = Object.defineProperties(
    {},
    Object.fromEntries(names.map((name) => [name, { get: () => valueOf(name), enumerable: true }])),
  ) as ValuesOf<R>;

  function fallback(setting: Setting<unknown>): unknown {
    const declared = setting.default;
    const raw = isComputed(declared) ? declared.from(view as never) : declared;
    // A default that does not fit its own kind is a mistake in the registry: it throws as it is.
    return raw === undefined ? setting.unset : setting.kind.parse(raw, context);
  }

  function valueOf(name: Name): unknown {
    if (values.has(name)) return values.get(name);
    if (reading.has(name)) throw new Error(`setting-registry.ts: the default of ${name} depends on itself`);
    reading.add(name);
    const setting = registry[name]!;
    const raw = isGiven(env[setting.env]) ? env[setting.env] : yaml[setting.key];
    let value: unknown;
    if (!isGiven(raw)) value = fallback(setting);
    else {
      try {
        value = setting.kind.parse(raw, context);
      } catch (error) {
        if (!(error instanceof ValueProblem)) throw error;
        problems.push({ setting: label(name), problem: error.message });
        failed.add(name);
        // Settings whose defaults follow this one still get a value; the start is refused anyway.
        value = fallback(setting);
      }
    }
    reading.delete(name);
    values.set(name, value);
    return value;
  }

  for (const name of names) valueOf(name);
  const read = Object.fromEntries(values) as ValuesOf<R>;
  for (const rule of rules) {
    if (rule.involves.some((name) => failed.has(name))) continue;
    for (const found of rule.check(read)) {
      const about = (typeof found.about === 'string' ? [found.about] : found.about) as readonly Name[];
      problems.push({ setting: about.map((name) => (found.byVariable ? registry[name]!.env : label(name))).join(' and '), problem: found.problem });
    }
  }
  return { values: read, problems, label };
}
