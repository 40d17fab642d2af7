// `npm run build` and `prepare`: compiles src/ to a clean dist/ with the TypeScript of the package's
// devDependencies, or of the checkout around it (the gateway repository's own node_modules).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
let tsc;
try {
  tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
} catch {
  console.error(
    '@access-gateway/signing: TypeScript is not installed here, so dist/ cannot be built.\nRun `npm install` in this directory first (it installs the devDependencies and builds), or install from a tarball made by `npm pack`.',
  );
  process.exit(1);
}
// Built beside dist/ and moved in a file at a time (each rename atomic): the gateway in this
// checkout (an npm workspace) loads dist/ at run time, so a rebuild (npm pack's prepare) never
// leaves a module missing, not even for the moment between removing dist/ and renaming a new one.
// dist/ is flat (tsconfig.json: one source folder).
const fresh = join(root, `dist.${process.pid}`);
const dist = join(root, 'dist');
try {
  execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.json'), '--outDir', fresh], { stdio: 'inherit' });
  mkdirSync(dist, { recursive: true });
  const built = new Set(readdirSync(fresh));
  for (const file of built) renameSync(join(fresh, file), join(dist, file));
  for (const file of readdirSync(dist)) if (!built.has(file)) rmSync(join(dist, file), { recursive: true, force: true });
} finally {
  rmSync(fresh, { recursive: true, force: true });
}
