// Properties of the settings readers, which parse outside input (the environment and the config
// file): an upstream name and its variable map one to one; any value of any setting either reads or
// is refused with a SettingsError naming that setting, never another failure; a whole number in a
// setting's range reads as itself and one outside is refused; an unknown variable's suggestion is a
// known name.
import fc from 'fast-check';
import t from 'tap';
import { closestName } from '../../gateway/config/closest-name.js';
import { ValueProblem } from '../../gateway/config/setting-kinds.js';
import { SETTINGS, type SettingName } from '../../gateway/config/setting-registry.js';
import { settingsFrom, SettingsError, SETTING_ENV_NAMES } from '../../gateway/config/settings.js';
import { UPSTREAM_NAME, upstreamNameOf, upstreamVariable } from '../../gateway/config/upstream-settings.js';
import { OTHER_GATEWAY_VARIABLES, unknownVariables } from '../../gateway/config/unknown-variables.js';
import { holds } from '../helpers/property.js';

const CWD = '/nonexistent-gateway-property-cwd';
const upstreamName = fc.stringMatching(/^[a-z][a-z0-9-]{0,31}$/);

t.test('an upstream name and its variable map one to one', async (t) => {
  holds(
    t,
    fc.property(upstreamName, (name) => upstreamNameOf(upstreamVariable(name)) === name && /^GATEWAY_UPSTREAM_[A-Z][A-Z0-9_]*$/.test(upstreamVariable(name))),
    500,
  );
  // Any variable that reads as a name is that name's only variable.
  holds(
    t,
    fc.property(fc.string({ maxLength: 40 }), (suffix) => {
      const variable = `GATEWAY_UPSTREAM_${suffix}`;
      const name = upstreamNameOf(variable);
      return name === undefined || (UPSTREAM_NAME.test(name) && upstreamVariable(name) === variable);
    }),
    500,
  );
  holds(
    t,
    fc.property(fc.stringMatching(/^[A-Z][A-Z0-9_]{0,31}$/), (suffix) => upstreamNameOf(`GATEWAY_UPSTREAM_${suffix}`) !== undefined),
    300,
  );
});

t.test('a declared upstream reads back from the variable and from the file, by its name', async (t) => {
  holds(
    t,
    fc.property(upstreamName, fc.integer({ min: 1, max: 65535 }), (name, port) => {
      // Two names are settings of their own, never an upstream's.
      if (SETTING_ENV_NAMES.includes(upstreamVariable(name))) return true;
      const url = `http://${name}.internal:${port}`;
      const fromEnv = settingsFrom({}, { [upstreamVariable(name)]: url }, CWD).upstreams[name];
      const fromFile = settingsFrom({ upstreams: { [name]: url } }, {}, CWD).upstreams[name];
      return fromEnv?.url === url && fromFile?.url === url;
    }),
    200,
  );
});

/** Text a person might put in a variable: numbers, words, lists, URLs, and anything at all. */
const envText = fc.oneof(
  fc.integer({ min: -10, max: 1_000_000_000_000 }).map(String),
  fc.constantFrom('true', 'false', 'auto', 'none', 'EdDSA', 'fence', 'production', '10.0.0.0/8', 'host:1', 'http://a', 'redis://r:6379', ','),
  fc.string({ maxLength: 30 }),
);
/** A value the config file might hold for a key: YAML scalars, lists and mappings. */
const yamlValue = fc.oneof(envText, fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 2 }));

t.test('any value of any setting reads, or is refused naming that setting', async (t) => {
  holds(
    t,
    fc.property(fc.constantFrom(...(Object.keys(SETTINGS) as SettingName[])), envText, fc.boolean(), (name, value, inFile) => {
      const { key, env, kind } = SETTINGS[name];
      let fits = true;
      try {
        kind.parse(value, { cwd: CWD });
      } catch (error) {
        if (!(error instanceof ValueProblem)) throw error;
        fits = false;
      }
      try {
        settingsFrom(inFile ? { [key]: value } : {}, inFile ? {} : { [env]: value }, CWD);
        // An empty variable is no value at all.
        return fits || value === '';
      } catch (error) {
        // A value that fits may still break a rule across settings (several workers without Redis).
        if (!(error instanceof SettingsError)) throw error;
        return fits || error.problems.some((p) => p.setting === (inFile ? `${key} (config) / ${env}` : env));
      }
    }),
    800,
  );
  // The upstreams map, and unknown keys, too: any shape is read or refused, never a crash.
  holds(
    t,
    fc.property(fc.dictionary(fc.string({ maxLength: 12 }), yamlValue, { maxKeys: 4 }), fc.dictionary(fc.string({ maxLength: 12 }), envText, { maxKeys: 3 }), (upstreams, env) => {
      try {
        settingsFrom({ upstreams }, Object.fromEntries(Object.entries(env).map(([k, v]) => [`GATEWAY_UPSTREAM_${k}`, v])), CWD);
        return true;
      } catch (error) {
        if (error instanceof SettingsError) return error.problems.length > 0;
        throw error;
      }
    }),
    800,
  );
});

t.test('a whole number in a setting’s range reads as itself; one outside is refused with the range', async (t) => {
  const bounded = (Object.keys(SETTINGS) as SettingName[]).filter((name) => /^\d+ to \d+$/.test(SETTINGS[name].allowed));
  t.ok(bounded.length > 20, `${bounded.length} settings with a range`);
  holds(
    t,
    fc.property(fc.constantFrom(...bounded), fc.double({ min: 0, max: 1, noNaN: true }), fc.boolean(), (name, where, above) => {
      const [min, max] = SETTINGS[name].allowed.split(' to ').map(Number) as [number, number];
      const inside = Math.round(min + where * (max - min));
      const env = SETTINGS[name].env;
      // Rules across settings may refuse a value that its own range allows: those problems name other settings or say so.
      let read: unknown;
      try {
        read = (settingsFrom({}, { [env]: String(inside) }, CWD) as Record<string, unknown>)[name];
      } catch (error) {
        if (!(error instanceof SettingsError)) throw error;
        if (error.problems.some((p) => /must be between/.test(p.problem))) return false;
        read = inside;
      }
      const outside = above ? max + 1 + Math.floor(where * 1000) : min - 1;
      let refusal = '';
      try {
        settingsFrom({}, { [env]: String(outside) }, CWD);
      } catch (error) {
        refusal = (error as Error).message;
      }
      const expected = outside < 0 ? 'must be a whole number' : `must be between ${min} and ${max}`;
      return read === inside && refusal.includes(`Invalid setting ${env}: ${expected}`);
    }),
    600,
  );
});

t.test('an unknown variable is reported with a known name, or none; a known one never', async (t) => {
  holds(
    t,
    fc.property(fc.stringMatching(/^[A-Z_]{1,30}$/), (rest) => {
      const name = `GATEWAY_${rest}`;
      const found = unknownVariables({ [name]: 'x' });
      const known = [...SETTING_ENV_NAMES, ...OTHER_GATEWAY_VARIABLES];
      if (known.includes(name) || /^GATEWAY_UPSTREAM_./.test(name)) return found.length === 0;
      const closest = found[0]?.closest;
      return found.length === 1 && found[0]!.name === name && (closest === undefined || known.includes(closest));
    }),
    800,
  );
  holds(
    t,
    fc.property(fc.constantFrom(...SETTING_ENV_NAMES), (name) => closestName(name, SETTING_ENV_NAMES) === name),
    100,
  );
});
