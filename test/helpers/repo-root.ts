// Where the repository is, for tests that read its files or start its programs.
import { existsSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The repository (with a trailing slash): the nearest directory above this file holding package.json.
 * `npm test` runs the suite compiled into .tap/build/ (no TypeScript loader per file), where the
 * fixed '../..' would name the build directory instead.
 */
export const REPO_ROOT = repositoryRoot(dirname(fileURLToPath(import.meta.url)));

function repositoryRoot(from: string): string {
  for (let dir = from; dirname(dir) !== dir; dir = dirname(dir)) if (existsSync(join(dir, 'package.json'))) return `${dir}${sep}`;
  throw new Error(`no package.json above ${from}`);
}
