// The policy files' JSON Schema is published for editors: policies/policy.schema.json is what
// `npm run docs` writes from the declaration the loader validates with, the shipped files name it
// on their first line, and an editor's validator (any draft-07 one) agrees with the loader on them.
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import t from 'tap';
import { parse as parseYaml } from 'yaml';
import { POLICY_SCHEMA_FILE, renderPolicySchema } from '../../scripts/generate-policy-schema.js';
import { REPO_ROOT } from '../helpers/gateway.js';

const read = (path: string) => readFileSync(`${REPO_ROOT}${path}`, 'utf8');
const SHIPPED = ['policies/public.yaml', 'policies/banking.yaml'];

t.test('policies/policy.schema.json is what npm run docs generates', async (t) => {
  t.ok(read(POLICY_SCHEMA_FILE) === renderPolicySchema(), `${POLICY_SCHEMA_FILE} is out of date: run \`npm run docs\` and commit the result`);
});

t.test('the shipped policy files name the schema for editors, and it accepts them', async (t) => {
  // Not strict: an editor ignores errorMessage and description, which the schema carries for people.
  const validate = new Ajv({ strict: false, allErrors: true }).compile(JSON.parse(read(POLICY_SCHEMA_FILE)) as object);
  for (const path of SHIPPED) {
    const text = read(path);
    t.equal(text.split('\n')[0], '# yaml-language-server: $schema=policy.schema.json', `${path}: the first line names the schema`);
    t.ok(validate(parseYaml(text)), `${path} is valid: ${JSON.stringify(validate.errors)}`);
  }
  const typo = parseYaml(read('policies/public.yaml').replace('scopes: [sales]', 'scope: [sales]'));
  t.notOk(validate(typo), 'a misspelt field is flagged, as the loader refuses it');
  t.match(validate.errors, [{ keyword: 'additionalProperties', params: { additionalProperty: 'scope' } }]);
});
