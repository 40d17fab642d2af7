// Run before `npm test`: type-checks the project and compiles it, tests included, to .tap/build/
// (tsconfig.test.json). A TypeScript loader in every test process costs more than the test itself
// for most files (docs/testing.md); the compiled suite loads plain JavaScript.
// The compile is incremental; a test whose source is gone is removed from the build, so it cannot run.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';

const BUILD = '.tap/build';
execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.test.json'], { stdio: 'inherit' });

for (const entry of readdirSync(BUILD, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith('.js')) continue;
  const compiled = join(entry.parentPath, entry.name);
  const source = relative(BUILD, compiled).replace(/\.js$/, '.ts');
  if (!existsSync(source)) {
    rmSync(compiled);
    rmSync(`${compiled}.map`, { force: true });
  }
}
