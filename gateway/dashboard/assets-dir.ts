// The dashboard's static files live in the top-level dashboard/ folder, which tsc does not copy:
// find it from this module's location, whether that is gateway/dashboard/ (tsx) or
// dist/gateway/dashboard/ (npm start), by walking up to the folder holding package.json.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export function findDashboardDir(from: string = fileURLToPath(import.meta.url)): string {
  let dir = dirname(from);
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'dashboard'))) return join(dir, 'dashboard');
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`dashboard/ assets not found above ${from}`);
    dir = parent;
  }
}
