// policies/policy.schema.json: the JSON Schema of policy files, written from the declaration the
// loader validates with (gateway/policy/policy-schema.ts), so editors check policy files as people
// type (the shipped files name it on their first line). `npm run docs` writes it; test/policy checks
// that the committed file is current.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PolicyFileSchema } from '../gateway/policy/policy-schema.js';

export const POLICY_SCHEMA_FILE = 'policies/policy.schema.json';

export function renderPolicySchema(): string {
  return `${JSON.stringify({ $schema: 'http://json-schema.org/draft-07/schema#', ...PolicyFileSchema }, null, 2)}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(fileURLToPath(new URL(`../${POLICY_SCHEMA_FILE}`, import.meta.url)), renderPolicySchema());
  console.log(`wrote ${POLICY_SCHEMA_FILE}`);
}
