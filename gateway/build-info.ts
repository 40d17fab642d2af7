// Which build is running, for gateway_build_info: the version of the package this file belongs to
// (found by walking up from here, as the source and the compiled dist/ sit at different depths).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 5; depth++, dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
    if (pkg.name === 'access-gateway') return pkg.version ?? 'unknown';
  }
  return 'unknown';
}

export const BUILD = Object.freeze({ version: packageVersion() });
