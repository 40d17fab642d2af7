// Run before `npm test`, once dependencies are installed and the gateway is built: the checks that
// do not depend on each other run at once (a two-core machine finishes them in about half the time
// of running them in turn). Each one's output is printed when it ends; any failure fails the run.
import { spawn } from 'node:child_process';

const node = process.execPath;
const STEPS = [
  ['type-check and compile the suite', [node, 'scripts/build-tests.mjs']],
  // The caches (kept with the compiled suite) re-check only the files that changed since the last run.
  ['eslint', [node, 'node_modules/eslint/bin/eslint.js', '--max-warnings', '0', '--cache', '--cache-location', '.tap/eslintcache', '.']],
  ['prettier', [node, 'node_modules/prettier/bin/prettier.cjs', '--check', '--log-level', 'warn', '--cache', '--cache-location', '.tap/prettiercache', '.']],
  ['test services', [node, 'scripts/check-test-services.mjs']],
];

function run([name, [command, ...args]]) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', (error) => resolve({ name, ok: false, output: `${output}${error.message}\n` }));
    child.on('close', (code, signal) => resolve({ name, ok: code === 0, output: signal ? `${output}ended by ${signal}\n` : output }));
  });
}

const results = await Promise.all(
  STEPS.map(async (step) => {
    const result = await run(step);
    if (result.output) process.stderr.write(result.output.endsWith('\n') ? result.output : `${result.output}\n`);
    return result;
  }),
);
const failed = results.filter((r) => !r.ok).map((r) => r.name);
if (failed.length > 0) {
  console.error(`[prepare-suite] failed: ${failed.join(', ')}`);
  process.exit(1);
}
