// The problems a refused start reports, as "setting: problem" lines (a settings test's usual check).
import type { Test } from 'tap';
import { settingsFrom, SettingsError } from '../../gateway/config/settings.js';

export function settingsProblems(t: Test, yaml: Record<string, unknown>, env: Record<string, string> = {}): string[] {
  try {
    settingsFrom(yaml, env, '/srv/gw');
  } catch (error) {
    t.type(error, SettingsError);
    return (error as SettingsError).problems.map((p) => `${p.setting}: ${p.problem}`);
  }
  t.fail('the settings were accepted');
  return [];
}
