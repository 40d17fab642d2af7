// A policy directory for one test: the shipped policies (which declare the scopes and permissions
// routes may name) and the test's own files beside them, removed at teardown.
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { REPO_ROOT } from './gateway.js';

/** The directory, with `files` (name: YAML text) written beside copies of policies/*.yaml. */
export function policyDirWith(t: Test, files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'gw-policies-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (const name of readdirSync(`${REPO_ROOT}policies`).filter((n) => /\.ya?ml$/.test(n))) copyFileSync(`${REPO_ROOT}policies/${name}`, join(dir, name));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

/** A policy file of Bearer routes (scope sales, which the shipped public policy declares) to `upstream` under /v1/<upstream>/. */
export function bearerPolicy(upstream: string): string {
  return [`upstream: ${upstream}`, 'auth: bearer', 'routes:', `  - { method: GET, path: "/v1/${upstream}/{id}", scopes: [sales] }`, ''].join('\n');
}
