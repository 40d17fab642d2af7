// What a test file started must not outlive it when the file is interrupted: tap's timeout (the
// runner's message, then SIGALRM, then SIGKILL), a developer's Ctrl-C (SIGINT), SIGTERM, SIGHUP, or
// an error that ends the process. Teardowns do not run then, so the helpers that start processes, make scratch
// directories or write under a key prefix register them here. On the way out this module kills
// each registered process and everything it started (synchronously: an 'exit' listener cannot
// wait), removes the directories, and leaves the prefixes' keys to a short program of their own
// that ends by itself; after a signal it re-raises it, so the process still ends as the signal meant.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './repo-root.js';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGALRM'] as const;
/** How long the exit waits for killed processes to be gone before removing their directories. */
const KILL_WAIT_MS = 2_000;
/** How long the program that deletes the keys may run. */
const PREFIX_DELETE_MS = 15_000;
// A script of its own (not compiled with the suite): found in the repository, wherever this file runs from.
const DELETE_PREFIXES = join(REPO_ROOT, 'test/helpers/delete-prefixes.mjs');

interface TrackedProcess {
  pid: number;
  /** It leads a process group of its own (spawned detached): the whole group is killed. */
  group: boolean;
}

const processes = new Map<number, TrackedProcess>();
const directories = new Set<string>();
/** Redis URL -> key prefixes written there. */
const prefixes = new Map<string, Set<string>>();
let installed = false;

/** Kills the process and its descendants if this process ends before the child does. */
export function killOnInterrupt(child: ChildProcess, options: { group?: boolean } = {}): void {
  const pid = child.pid;
  if (pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  install();
  processes.set(pid, { pid, group: options.group ?? false });
  child.once('exit', () => processes.delete(pid));
}

/** Removes the directory if this process ends before the returned function is called (after the normal removal). */
export function removeOnInterrupt(dir: string): () => void {
  install();
  directories.add(dir);
  return () => directories.delete(dir);
}

/** Deletes the prefix's keys at `redisUrl` if this process is interrupted or fails before forgetPrefix. */
export function deletePrefixOnInterrupt(redisUrl: string, prefix: string): void {
  install();
  const set = prefixes.get(redisUrl) ?? new Set<string>();
  set.add(prefix);
  prefixes.set(redisUrl, set);
}

/** The prefix's keys were deleted (or handed over): nothing left to do on the way out. */
export function forgetPrefix(redisUrl: string, prefix: string): void {
  prefixes.get(redisUrl)?.delete(prefix);
}

function install(): void {
  if (installed) return;
  installed = true;
  // An exit with code 0 comes after every teardown: whatever is still registered then is either
  // gone already or belongs to another server (prefixes used on a topology of the test's own).
  process.on('exit', (code) => cleanUp({ deleteKeys: code !== 0 }));
  for (const signal of SIGNALS) process.on(signal, onSignal);
  // tap's runner says it timed the file out over the IPC channel, then sends SIGALRM half a second
  // later and SIGKILL half a second after that: a busy machine may not get to the SIGALRM in time,
  // so the cleanup starts on the message. The channel must not keep the process alive (tap, which
  // listens too, unrefs it as well).
  if (process.channel) {
    process.on('message', onRunnerMessage);
    process.channel.unref();
  }
}

function onRunnerMessage(message: unknown): void {
  if (typeof message === 'object' && message !== null && (message as { tapAbort?: unknown }).tapAbort === 'timeout') cleanUp({ deleteKeys: true });
}

function onSignal(signal: NodeJS.Signals): void {
  cleanUp({ deleteKeys: true });
  for (const s of SIGNALS) process.off(s, onSignal);
  // Without this listener the signal does what it would have done: tap's own handler (if any)
  // reports and ends the process, or the default action ends it.
  process.kill(process.pid, signal);
}

function cleanUp({ deleteKeys }: { deleteKeys: boolean }): void {
  const killed = killAll();
  // Once nothing of the test's can write under the prefixes any more.
  if (deleteKeys) deleteRegisteredPrefixes();
  prefixes.clear();
  waitUntilGone(killed, KILL_WAIT_MS);
  for (const dir of directories) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  directories.clear();
}

/** SIGKILL to every registered process (its group, for a group leader) and each of its descendants; returns the pids signalled. */
function killAll(): number[] {
  const signalled: number[] = [];
  for (const { pid, group } of processes.values()) {
    // Found before the kill: a killed parent's children are re-parented and no longer listed under it.
    const tree = [pid, ...descendantsOf(pid)];
    // The parent first, so that it cannot start replacements (nginx's master, the gateway's primary).
    if (group) trySignal(-pid);
    for (const member of tree) if (trySignal(member)) signalled.push(member);
  }
  processes.clear();
  return signalled;
}

function trySignal(pid: number): boolean {
  try {
    process.kill(pid, 'SIGKILL');
    return true;
  } catch {
    return false;
  }
}

/** Children, grandchildren, ... of a process, from /proc (Linux); none where /proc cannot say. */
export function descendantsOf(pid: number, depth = 0): number[] {
  if (depth > 16) return [];
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const children = threads.flatMap((tid) => {
    try {
      return readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(/\s+/).filter(Boolean).map(Number);
    } catch {
      return [];
    }
  });
  return children.flatMap((child) => [child, ...descendantsOf(child, depth + 1)]);
}

/** Until every pid is gone or a zombie (dead, not yet reaped), polling /proc, for at most timeoutMs. */
function waitUntilGone(pids: number[], timeoutMs: number): void {
  const deadline = Date.now() + timeoutMs;
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  while (pids.some(isRunning) && Date.now() < deadline) Atomics.wait(sleeper, 0, 0, 10);
}

function isRunning(pid: number): boolean {
  try {
    // /proc/<pid>/stat: "pid (comm) S ...", where the comm may hold spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/**
 * One short program per Redis, not waited for: this process's event loop is done, and tap's runner
 * follows its timeout signal with SIGKILL half a second later. The program stops at its time limit.
 */
function deleteRegisteredPrefixes(): void {
  for (const [url, set] of prefixes) {
    if (set.size === 0) continue;
    spawn(process.execPath, [DELETE_PREFIXES, url, String(PREFIX_DELETE_MS), ...set], { stdio: 'ignore', detached: false }).unref();
  }
}
