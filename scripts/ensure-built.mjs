// Run before `npm start`, `npm test` and `npm run bench`: installs dependencies when they are
// missing or older than the lock file, then compiles (incrementally, so an unchanged tree is quick).
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const installed = 'node_modules/.package-lock.json';
const stale = !existsSync(installed) || (existsSync('package-lock.json') && statSync('package-lock.json').mtimeMs > statSync(installed).mtimeMs);
if (stale) {
  console.error('[ensure-built] installing dependencies (npm ci)');
  execFileSync(npm, ['ci', '--no-audit', '--no-fund'], { stdio: 'inherit' });
}
const tsc = (project, buildInfo) =>
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', project, '--incremental', '--tsBuildInfoFile', buildInfo], { stdio: 'inherit' });
// The client package (@access-gateway/signing, an npm workspace) first: the compiled gateway loads its dist/.
tsc('clients/typescript/tsconfig.json', 'clients/typescript/dist/.tsbuildinfo');
tsc('tsconfig.build.json', 'dist/.tsbuildinfo');
// The bench is no part of the production build (nor of the image): `npm run bench` (and
// bench:tracing, its tracing rows alone) compiles it here.
if (['prebench', 'prebench:tracing'].includes(process.env.npm_lifecycle_event)) tsc('tsconfig.bench.json', 'dist/.tsbuildinfo-bench');
