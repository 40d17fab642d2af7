// The reference documents cannot drift: docs/errors.md and docs/settings.md are what
// scripts/generate-reference.ts renders from the code, and config/gateway.yaml names every setting.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { parse as parseYaml } from 'yaml';
import { ERRORS } from '../../gateway/errors.js';
import { SETTING_KEYS } from '../../gateway/config/settings.js';
import { REFERENCE_FILES, renderReference } from '../../scripts/generate-reference.js';
import { REPO_ROOT } from '../helpers/gateway.js';

const read = (path: string) => readFileSync(`${REPO_ROOT}${path}`, 'utf8');

t.test('docs/errors.md and docs/settings.md are what npm run docs generates', async (t) => {
  const rendered = renderReference();
  for (const [name, path] of Object.entries(REFERENCE_FILES) as Array<[keyof typeof REFERENCE_FILES, string]>) {
    let committed = '';
    try {
      committed = read(path);
    } catch {
      // reported below as a difference
    }
    t.ok(committed === rendered[name], `${path} is out of date: run \`npm run docs\` (scripts/generate-reference.ts) and commit the result`);
  }
});

t.test('the reference covers every error code and every setting', async (t) => {
  const { errors, settings } = renderReference();
  for (const [code, entry] of Object.entries(ERRORS)) {
    t.match(errors, `| \`${code}\` | ${entry.status} |`, `${code} is documented with its status`);
    t.ok(entry.action.trim().length > 0, `${code} says what the client should do`);
  }
  for (const { yamlKey, envName } of SETTING_KEYS) t.match(settings, `| \`${yamlKey}\` | \`${envName}\` |`, `${yamlKey} is documented`);
});

t.test('config/gateway.yaml mentions every setting, by config key and environment variable', async (t) => {
  const text = read('config/gateway.yaml');
  t.doesNotThrow(() => parseYaml(text), 'it is valid YAML');
  for (const { yamlKey, envName } of SETTING_KEYS) {
    t.match(text, new RegExp(`^#? ?${yamlKey}:.*#.*\\b${envName}\\b`, 'm'), `config/gateway.yaml has a line for ${yamlKey} naming ${envName}`);
  }
});
