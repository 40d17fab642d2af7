// Run before `npm test`: a fresh `npm ci` installs tap built with its default plugins, TypeScript's
// among them, which loads ts-node into every test process (about 2 s each) although tsx compiles
// the tests. tap rebuilds for the project's plugin list only after the run that notices it, so a
// clean clone's first run would pay for every file: build it first when the built list differs.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const built = 'node_modules/@tapjs/test/test-built/dist/esm/index.js';
if (readFileSync(built, 'utf8').includes('from "@tapjs/typescript"')) {
  console.error("[ensure-tap-plugins] building tap with the project's plugins (tap build)");
  execFileSync(process.execPath, ['node_modules/tap/dist/esm/run.mjs', 'build'], { stdio: ['ignore', 'ignore', 'inherit'] });
}
