// An interrupted test file leaves nothing running and nothing behind: a file that started gateway
// processes (one with two workers, one in a process group of its own), a redis-server, nginx and
// Caddy through the test helpers, and seeded keys in the shared Redis, is stopped by tap's
// timeout, by Ctrl-C (SIGINT) or by SIGTERM. Within a few seconds every process it started is gone,
// their scratch directories are removed and its keys deleted.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { REPO_ROOT } from '../helpers/gateway.js';
import { until } from '../helpers/poll.js';
import { descendantsOf } from '../helpers/interrupt-cleanup.js';
import { TEST_REDIS_URL } from '../helpers/redis.js';
import { countKeys } from '../helpers/redis-topology.js';

const FIXTURE = join(REPO_ROOT, 'test/infrastructure/fixtures/interrupted-run.ts');
const TAP_RUNNER = join(REPO_ROOT, 'node_modules/tap/dist/esm/run.mjs');
/** The fixture starts two gateways' worth of processes under load: generous, but bounded. */
const START_LIMIT_MS = 60_000;
/** How soon after the interruption every process must be gone. */
const GONE_LIMIT_MS = 5_000;
/** How soon after the interruption the keys must be deleted (a program of its own does it, started then). */
const KEYS_LIMIT_MS = 15_000;

interface Report {
  prefixes: string[];
  dir: string;
  seeded: number;
}

/** A process as seen once: its start time (clock ticks since boot) tells it from a later one with the same pid. */
interface Seen {
  pid: number;
  started: string;
  command: string;
  /** Scratch directories it works in (redis-server's --dir, nginx's -p, Caddy's config directory). */
  dirs: string[];
}

function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After "pid (comm) ": state is field 3, start time field 22.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

function see(pid: number): Seen | undefined {
  const fields = statFields(pid);
  if (!fields) return undefined;
  let command = '';
  let cwd = '';
  try {
    // Servers that rename themselves (nginx, redis-server) leave one space-separated string here.
    command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
    cwd = readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    // Gone meanwhile: seen without its details.
  }
  const config = / --config (\S+)/.exec(command)?.[1];
  const dirs = [/redis-server/.test(command) ? cwd : undefined, / -p (\S+)/.exec(command)?.[1], config && dirname(config)].filter(
    (d): d is string => d !== undefined && d.startsWith(tmpdir()),
  );
  return { pid, started: fields[19]!, command, dirs };
}

/** Still running: the same process (same start time), not a zombie waiting to be reaped. */
function running(seen: Seen): boolean {
  const fields = statFields(seen.pid);
  return fields !== undefined && fields[19] === seen.started && fields[0] !== 'Z';
}

interface Interruption {
  /** FIXTURE_SERVICES for the fixture. */
  services: string;
  /** How it is interrupted: a signal to the fixture, or the tap runner's timeout. */
  by: 'SIGINT' | 'SIGTERM' | 'tap timeout';
}

/** Runs the fixture, waits for its report, interrupts it, and returns what it had started. */
async function interrupt(scratch: string, { services, by }: Interruption) {
  const report = join(scratch, `${by.replace(' ', '-')}.json`);
  // Not this file's TAP_* settings: the fixture is a file of its own (or the runner's).
  // Alone, no timeout of tap's own: START_LIMIT_MS bounds the start, the fixture its wait.
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('TAP')));
  const env = {
    ...inherited,
    FIXTURE_SERVICES: services,
    FIXTURE_REPORT: report,
    TEST_REDIS_URL,
    ...(by === 'tap timeout' ? { FIXTURE_TIMEOUT_MS: '1000' } : { TAP_TIMEOUT: '0' }),
  };
  // Under the runner, the fixture is a file it runs (with the project's tap settings: tsx); alone, a node script.
  const args = by === 'tap timeout' ? [TAP_RUNNER, '--disable-coverage', '--reporter=tap', '--timeout=120', FIXTURE] : ['--import', 'tsx', FIXTURE];
  const child: ChildProcess = spawn(process.execPath, args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: false });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let tree: Seen[] = [];
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  try {
    await until(async () => existsSync(report) || child.exitCode !== null, `the fixture (${by}) starts everything`, START_LIMIT_MS);
    if (!existsSync(report)) throw new Error(`the fixture (${by}) ended before starting everything:\n${output}`);
    const started = JSON.parse(readFileSync(report, 'utf8')) as Report;
    // What it started, seen before the interruption.
    tree = descendantsOf(child.pid!)
      .map(see)
      .filter((s): s is Seen => s !== undefined && s.pid !== child.pid);
    // Under the runner, the interruption is the timeout the fixture asked for once it had reported,
    // which the runner acts on when it gets to it (seconds late on a loaded machine): the clock then
    // starts when the runner has ended the fixture's own process.
    if (by === 'tap timeout') {
      const fixture = tree.find((s) => s.command.includes('fixtures/interrupted-run'));
      await until(() => fixture === undefined || !running(fixture), 'the runner ends the fixture at its timeout', START_LIMIT_MS);
    } else child.kill(by);
    const interruptedAt = Date.now();
    let left = tree.filter(running);
    for (let i = 0; i < GONE_LIMIT_MS / 50 && left.length > 0 && Date.now() - interruptedAt < GONE_LIMIT_MS; i++) {
      await sleep(50);
      left = tree.filter(running);
    }
    const goneAfterMs = Date.now() - interruptedAt;
    const exit = await Promise.race([exited, sleep(GONE_LIMIT_MS).then(() => undefined)]);
    const dirs = [started.dir, ...tree.flatMap((s) => s.dirs)];
    let keysLeft = await Promise.all(started.prefixes.map((prefix) => countKeys(TEST_REDIS_URL, prefix)));
    for (let i = 0; i < KEYS_LIMIT_MS / 200 && keysLeft.some((n) => n > 0) && Date.now() - interruptedAt < KEYS_LIMIT_MS; i++) {
      await sleep(200);
      keysLeft = await Promise.all(started.prefixes.map((prefix) => countKeys(TEST_REDIS_URL, prefix)));
    }
    return { started, tree, exit, left, goneAfterMs, dirs, dirsLeft: dirs.filter((d) => existsSync(d)), keysLeft, output };
  } finally {
    await endEverything(child, tree);
  }
}

/**
 * Nothing of a failed case outlives this test: SIGTERM to the fixture (its own cleanup then runs),
 * to everything under it and to what it had started, SIGKILL to whatever is left after 5 s.
 */
async function endEverything(child: ChildProcess, seenBefore: Seen[]): Promise<void> {
  const now = [child.pid!, ...descendantsOf(child.pid!)].map(see).filter((s): s is Seen => s !== undefined);
  const tree = [...now, ...seenBefore].filter(running);
  for (const s of tree) signal(s.pid, 'SIGTERM');
  for (let i = 0; i < 50 && tree.some(running); i++) await sleep(100);
  for (const s of tree.filter(running)) signal(s.pid, 'SIGKILL');
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Gone already.
  }
}

const scratch = mkdtempSync(join(tmpdir(), 'gw-interrupted-'));
t.teardown(() => rmSync(scratch, { recursive: true, force: true }));

const cases: (Interruption & { expect: { processes: RegExp[] } })[] = [
  { by: 'tap timeout', services: 'redis,nginx', expect: { processes: [/redis-server/, /nginx: master/, /nginx: worker/] } },
  { by: 'SIGINT', services: 'gateway,workers', expect: { processes: [/gateway\/main\.ts/] } },
  { by: 'SIGTERM', services: 'gateway,detached,caddy', expect: { processes: [/gateway\/main\.ts/, /caddy run/] } },
];

// The three run at once: each waits mostly for its gateway to start.
const results = Promise.allSettled(cases.map((c) => interrupt(scratch, c)));

for (const [i, c] of cases.entries()) {
  t.test(`interrupted by ${c.by} (${c.services})`, async (t) => {
    const settled = (await results)[i]!;
    if (settled.status === 'rejected') throw settled.reason;
    const result = settled.value;
    for (const pattern of c.expect.processes)
      t.ok(
        result.tree.some((s) => pattern.test(s.command)),
        `it had started ${pattern.source}`,
        { tree: result.tree.map((s) => s.command) },
      );
    if (c.services.includes('workers'))
      t.ok(result.tree.filter((s) => /gateway\/main\.ts/.test(s.command)).length >= 3, 'the gateway primary and its two workers', {
        tree: result.tree.map((s) => s.command),
      });
    if (c.by === 'tap timeout') {
      t.match(result.output, /timeout/, 'the runner timed the file out');
    } else {
      t.same(result.exit, { code: null, signal: c.by }, 'the file ended by the signal, before its teardowns');
    }
    t.same(
      result.left.map((s) => s.command),
      [],
      `no process is left running ${result.goneAfterMs} ms after the interruption`,
    );
    t.ok(result.goneAfterMs <= GONE_LIMIT_MS, 'gone within the limit');
    t.ok(
      result.dirs.length >= 1 + (c.services.includes('redis') ? 1 : 0) + (c.services.includes('nginx') ? 1 : 0) + (c.services.includes('caddy') ? 1 : 0),
      'its scratch directories were found',
      { dirs: result.dirs },
    );
    t.same(result.dirsLeft, [], 'its scratch directories are removed');
    t.same(result.keysLeft, [0, 0], `its keys (${result.started.seeded} seeded) are deleted`);
  });
}
