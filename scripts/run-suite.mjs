// `npm test`'s runner for the compiled suite (.tap/build/test): a few long-lived worker processes
// (scripts/suite-worker.mjs) take files from one queue, each running the files it takes one after
// another. Why not tap's runner, one process per file: every process paid tap's module hooks and
// the gateway's module graph again, most of the suite's CPU time (docs/testing.md has the figures).
//
//   node scripts/run-suite.mjs [--jobs N] [--file-timeout SECONDS] [test/<area> | test/<area>/<file>.test.ts ...]
//
// Prints a line per file as it finishes and, at the end, every failed test point with its
// diagnostics; each worker's whole TAP stream is in .tap/suite/worker-<n>.tap. A file that runs
// longer than --file-timeout (120 s) is failed and its worker stopped with SIGTERM (the test helpers then
// stop what it started); the queue goes on in a new worker. Exits 1 when anything failed.
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative, resolve } from 'node:path';

const BUILD = '.tap/build';
const OUT = '.tap/suite';
/** Durations of the last full run, so that the next one starts the slowest files first. */
const TIMES = '.tap/suite-times.json';
const DEFAULT_FILE_TIMEOUT_S = 120;
const KILL_GRACE_MS = 5_000;
/** Four at a time on two cores: most files spend most of their time waiting on processes they started or on a Redis failover. */
const DEFAULT_JOBS = availableParallelism() + 2;

function wholeNumber(flag, value, max) {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1 || number > max) throw new Error(`${flag} takes a whole number from 1 to ${max}`);
  return number;
}

function parseArguments(argv) {
  let jobs = DEFAULT_JOBS;
  let fileTimeoutMs = DEFAULT_FILE_TIMEOUT_S * 1000;
  const paths = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--jobs') jobs = wholeNumber('--jobs', argv[++i], 64);
    else if (argv[i] === '--file-timeout') fileTimeoutMs = wholeNumber('--file-timeout', argv[++i], 3600) * 1000;
    else if (argv[i].startsWith('-')) throw new Error(`unknown option ${argv[i]}; the options are --jobs N and --file-timeout SECONDS`);
    else paths.push(argv[i]);
  }
  return { jobs, fileTimeoutMs, paths };
}

/** test/x/y.test.ts (or .js, or a directory) as its compiled path under .tap/build. */
function compiledPath(path) {
  const inBuild = relative(resolve(BUILD), resolve(path)).startsWith('..') ? join(BUILD, path) : path;
  return inBuild.replace(/\.ts$/, '.js');
}

function testFilesUnder(path) {
  if (!existsSync(path)) throw new Error(`${path} does not exist (is the suite compiled? npm test compiles it)`);
  if (statSync(path).isFile()) return [path];
  return readdirSync(path, { recursive: true })
    .filter((name) => name.endsWith('.test.js'))
    .map((name) => join(path, name));
}

function readTimes() {
  try {
    return JSON.parse(readFileSync(TIMES, 'utf8'));
  } catch {
    return {};
  }
}

/**
 * The queue. Files named on the command line run in the order given (a directory's by name), so a
 * sequence can be reproduced; the whole suite runs the slowest files of the last full run first (a
 * slow file taken last would run alone at the end), the rest by name.
 */
function queueOf(paths, times) {
  if (paths.length > 0) return [...new Set(paths.map(compiledPath).flatMap((path) => testFilesUnder(path).sort()))];
  const files = testFilesUnder(join(BUILD, 'test'))
    .filter((file) => !file.includes('/helpers/'))
    .sort();
  return files.sort((a, b) => (times[b] ?? 0) - (times[a] ?? 0));
}

function cpuSecondsOfChildren() {
  try {
    // /proc/self/stat fields 16 and 17: cutime and cstime of the waited-for children, in clock ticks.
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return undefined; // no /proc (not Linux)
  }
}

/** The assertions of a worker's TAP stream, from tap's closing summary: { total, fail }. */
function assertionsIn(tap) {
  const summary = /^# \{ total: (\d+)(?:, pass: \d+)?(?:, fail: (\d+))?/m.exec(tap.split('\n').reverse().join('\n'));
  return { total: Number(summary?.[1] ?? 0), fail: Number(summary?.[2] ?? 0) };
}

/** Every "not ok" line of a TAP stream with the indented diagnostics under it. */
function failuresIn(tap) {
  const lines = tap.split('\n');
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const match = /^(\s*)not ok /.exec(lines[i]);
    if (!match) continue;
    out.push(lines[i]);
    const indent = match[1].length;
    while (i + 1 < lines.length && (lines[i + 1].trim() === '' || lines[i + 1].search(/\S/) > indent) && !/^\s*(not )?ok /.test(lines[i + 1]))
      out.push(lines[++i]);
  }
  return out;
}

async function main() {
  const { jobs, fileTimeoutMs, paths } = parseArguments(process.argv.slice(2));
  // Two more slices than workers at once: a worker started in place of a stopped one, whose
  // processes may still be going, takes a slice no running worker has.
  const PORT_SLICES = jobs + 2;
  const times = readTimes();
  const queue = queueOf(paths, times);
  if (queue.length === 0) throw new Error('no test files matched');
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });

  const started = performance.now();
  const results = new Map();
  const logs = [];
  let workerCount = 0;
  let stopping = false;
  const running = new Set();

  function startWorker() {
    const id = ++workerCount;
    const log = join(OUT, `worker-${id}.tap`);
    logs.push(log);
    const out = createWriteStream(log);
    // TAP_TIMEOUT=0: no root timeout, a worker lives for many files; the runner times each file.
    // PORT_SLICE: each worker picks free ports from its own part of the range (bench/processes.ts),
    // so no two workers race for one port.
    const child = spawn(process.execPath, ['--enable-source-maps', 'scripts/suite-worker.mjs'], {
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      env: { ...process.env, TAP_TIMEOUT: '0', PORT_SLICE: `${(id - 1) % PORT_SLICES}/${PORT_SLICES}` },
    });
    child.stdout.pipe(out, { end: false });
    child.stderr.pipe(out, { end: false });
    const worker = { child, file: undefined, timer: undefined, failed: false };
    running.add(worker);

    child.on('message', (message) => {
      if (message.finished !== undefined) {
        clearTimeout(worker.timer);
        worker.failed ||= message.failed > 0;
        record(message.finished, { ok: message.failed === 0, tests: message.tests, failed: message.failed, ms: message.ms });
        worker.file = undefined;
      }
      if (message.ready) {
        const file = stopping ? undefined : queue.shift();
        worker.file = file;
        if (file !== undefined) {
          worker.startedAt = performance.now();
          worker.timer = setTimeout(() => {
            record(file, { ok: false, tests: 0, failed: 1, ms: fileTimeoutMs, note: `timed out after ${fileTimeoutMs / 1000} s` });
            worker.file = undefined;
            child.kill('SIGTERM');
            setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS).unref();
          }, fileTimeoutMs);
        }
        child.send({ file });
      }
    });

    return new Promise((resolveWorker) => {
      child.on('close', (code, signal) => {
        clearTimeout(worker.timer);
        out.end();
        running.delete(worker);
        // A worker that ends in the middle of a file (a crash, an uncaught error) fails that file.
        if (worker.file !== undefined) {
          const ms = Math.round(performance.now() - worker.startedAt);
          record(worker.file, { ok: false, tests: 0, failed: 1, ms, note: `its worker ended (${signal ?? `exit code ${code}`})` });
        } else if (code !== 0 && !worker.failed && !stopping) {
          record(`worker-${id}`, { ok: false, tests: 0, failed: 1, ms: 0, note: `ended with exit code ${code} after its files` });
        }
        resolveWorker(queue.length > 0 && !stopping ? startWorker() : undefined);
      });
    });
  }

  function record(file, result) {
    results.set(file, result);
    const name = file.startsWith(BUILD) ? relative(BUILD, file) : file;
    const seconds = (result.ms / 1000).toFixed(1).padStart(6);
    console.log(`${result.ok ? 'ok    ' : 'FAILED'} ${seconds} s  ${name}${result.note ? `  (${result.note})` : ''}`);
  }

  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      stopping = true;
      for (const worker of running) worker.child.kill(signal);
    });
  }

  await Promise.all(Array.from({ length: Math.min(jobs, queue.length) }, startWorker));

  const failedFiles = [...results].filter(([, result]) => !result.ok);
  const assertions = { total: 0, fail: 0 };
  for (const log of logs) {
    const tap = readFileSync(log, 'utf8');
    const counted = assertionsIn(tap);
    assertions.total += counted.total;
    assertions.fail += counted.fail;
    const failures = failedFiles.length > 0 ? failuresIn(tap) : [];
    if (failures.length > 0) console.log(`\n--- failures in ${log}\n${failures.join('\n')}`);
  }
  const wall = Math.round((performance.now() - started) / 1000);
  const cpu = cpuSecondsOfChildren();
  console.log(
    `\n${results.size} files (${failedFiles.length} failed${queue.length > 0 ? `, ${queue.length} not run` : ''}), ` +
      `${assertions.total} assertions (${assertions.fail} failed), ${wall} s, ${cpu === undefined ? 'CPU time unknown' : `${Math.round(cpu)} CPU-s`} in ${workerCount} workers, ${jobs} at a time`,
  );
  for (const [file] of failedFiles) console.log(`failed: ${file.startsWith(BUILD) ? relative(BUILD, file) : file}`);
  if (paths.length === 0 && failedFiles.length === 0) {
    writeFileSync(TIMES, JSON.stringify(Object.fromEntries([...results].map(([file, result]) => [file, result.ms])), null, 1));
  }
  process.exitCode = failedFiles.length > 0 || queue.length > 0 || stopping ? 1 : 0;
}

main().catch((error) => {
  console.error(`run-suite: ${error.message}`);
  process.exitCode = 1;
});
