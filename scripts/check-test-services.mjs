// Run before `npm test`: the suite talks to a real Redis and drives Debian's Chromium. Start or
// install what is missing when this machine allows it; otherwise stop with what to do.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createConnection } from 'node:net';

// The Redis the tests use (test/helpers/redis.ts reads the same variable).
const redisUrl = new URL(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
const redisHost = redisUrl.hostname || '127.0.0.1';
const redisPort = Number(redisUrl.port || 6379);
const redisAt = `${redisHost}:${redisPort}`;

/** Whether something answers a PING there (a password-protected Redis answers -NOAUTH: also up). */
function redisAnswers() {
  return new Promise((resolve) => {
    const socket = createConnection({ host: redisHost, port: redisPort });
    socket.setTimeout(1000);
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (data) => {
      resolve(/^(\+PONG|-NOAUTH)/.test(data.toString()));
      socket.destroy();
    });
    socket.on('error', () => resolve(false));
    socket.on('timeout', () => {
      resolve(false);
      socket.destroy();
    });
  });
}

function has(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
}

const problems = [];
if (!(await redisAnswers())) {
  // Only a local one is started; a TEST_REDIS_URL elsewhere is the developer's to run.
  if (redisHost === '127.0.0.1' && has('redis-server')) {
    console.error(`[check] Redis is not answering on ${redisAt}; starting redis-server`);
    execFileSync('redis-server', ['--daemonize', 'yes', '--bind', '127.0.0.1', '--port', String(redisPort), '--save', '', '--appendonly', 'no'], {
      stdio: 'inherit',
    });
    for (let i = 0; i < 50 && !(await redisAnswers()); i++) await new Promise((r) => setTimeout(r, 100));
  }
  if (!(await redisAnswers())) problems.push(`Redis must answer on ${redisAt} (TEST_REDIS_URL; apt-get install redis-server).`);
}

const root = process.getuid?.() === 0;
function aptInstall(pkg) {
  console.error(`[check] installing ${pkg} from Debian's packages`);
  execFileSync('sh', ['-c', `apt-get install -y -qq ${pkg} >/dev/null || (apt-get update -qq && apt-get install -y -qq ${pkg} >/dev/null)`], {
    stdio: 'inherit',
  });
}
if (!existsSync('/usr/bin/chromium')) {
  if (root && has('apt-get')) aptInstall('chromium');
  if (!existsSync('/usr/bin/chromium')) problems.push("Debian's Chromium must be at /usr/bin/chromium (apt-get install chromium).");
}
if (spawnSync('python3', ['-c', 'import cryptography']).status !== 0) {
  if (root && has('apt-get')) aptInstall('python3-cryptography');
  if (spawnSync('python3', ['-c', 'import cryptography']).status !== 0)
    problems.push('python3 with the cryptography package is needed (apt-get install python3-cryptography).');
}
// test/clients/python-sdk.test.ts: a venv of Debian's python3 (apt's packages), built without an index.
const pythonClientModules = () => spawnSync('/usr/bin/python3', ['-c', 'import cryptography, requests, httpx, ensurepip, setuptools, wheel']).status === 0;
if (!pythonClientModules()) {
  if (root && has('apt-get')) aptInstall('python3-cryptography python3-requests python3-httpx python3-venv python3-setuptools python3-wheel');
  if (!pythonClientModules())
    problems.push(
      "Debian's /usr/bin/python3 with its requests, httpx, venv, setuptools and wheel packages is needed by the Python client test (apt-get install python3-requests python3-httpx python3-venv python3-setuptools python3-wheel).",
    );
}
const tools = [
  ['openssl', 'openssl', 'the signing tests'],
  ['curl', 'curl', 'the signing tests'],
  ['ssh-keygen', 'openssh-client', 'the signing tests'],
  ['nginx', 'nginx', 'the rolling-restart and nginx decision tests'],
  ['caddy', 'caddy', 'the Caddy decision test (test/decision/caddy-forward-auth.test.ts)'],
  ['promtool', 'prometheus', 'the alert-rule check (promtool check rules)'],
];
// Debian installs nginx in /usr/sbin, which a non-root PATH may lack.
const hasTool = (tool) => has(tool) || existsSync(`/usr/sbin/${tool}`);
for (const [tool, pkg, user] of tools) {
  if (!hasTool(tool) && root && has('apt-get')) aptInstall(pkg);
  if (!hasTool(tool)) problems.push(`${tool} is needed by ${user} (apt-get install ${pkg}).`);
}

if (problems.length > 0) {
  console.error('[check] the test suite cannot run:\n- ' + problems.join('\n- '));
  process.exit(1);
}
