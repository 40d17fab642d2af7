// Child processes for the benchmark, so that the load generator does not share an event loop
// with what it measures.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';

/** The kernel's ephemeral ports (outgoing connections and listen(0) take theirs from here). */
function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low && high) return [low, high];
  } catch {
    // not Linux: the IANA range most others use
  }
  return [49152, 65535];
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Ports this process handed out lately: a port not yet bound by its process probes free again. */
const handedOut = new Map<number, number>();
const HANDED_OUT_MS = 60_000;

/**
 * The part of the range this process picks from. The test suite's workers run side by side, each
 * told its slice ("i/n", PORT_SLICE): a port one worker found free cannot be bound by another
 * worker's process before the first binds it.
 */
function sliceOf(base: number, low: number): [number, number] {
  const match = /^(\d+)\/(\d+)$/.exec(process.env.PORT_SLICE ?? '');
  if (!match) return [base, low];
  const [index, count] = [Number(match[1]), Number(match[2])];
  const size = Math.floor((low - base) / count);
  return [base + index * size, base + (index + 1) * size];
}

/**
 * A loopback port free now, for a process started next. Chosen below the ephemeral range: a port
 * from listen(0) is free again once probed, and the kernel may give it to any outgoing connection
 * (to Redis, an upstream) before the process binds it; ports below the range it never hands out.
 */
export async function freePort(): Promise<number> {
  const [low] = ephemeralRange();
  const [from, to] = sliceOf(Math.max(1024, low - 12_000), low);
  const now = Date.now();
  for (const [port, at] of handedOut) if (now - at > HANDED_OUT_MS) handedOut.delete(port);
  for (let attempt = 0; attempt < 50; attempt++) {
    const candidate = from + Math.floor(Math.random() * (to - from));
    if (handedOut.has(candidate) || !(await canListen(candidate))) continue;
    handedOut.set(candidate, now);
    return candidate;
  }
  throw new Error(`no free loopback port in ${from}-${to - 1} in 50 attempts`);
}

/**
 * Starts a node script and resolves once its output contains `readyText`. From then on its output is
 * read and dropped: kept and searched, a gateway's request lines at the default level cost the bench
 * process more CPU with every line (the whole output searched again per chunk), CPU that the process
 * under test shares its two cores with.
 */
export async function startProcess(args: string[], env: NodeJS.ProcessEnv, readyText: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
  };
  try {
    await new Promise<void>((resolve, reject) => {
      const onReady = () => {
        if (output.includes(readyText)) resolve();
      };
      child.stdout.on('data', onData).on('data', onReady);
      child.stderr.on('data', onData).on('data', onReady);
      child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}:\n${output}`)));
      setTimeout(() => reject(new Error(`${args.join(' ')} did not start:\n${output}`)), 20_000).unref();
    });
  } finally {
    child.stdout.removeAllListeners('data');
    child.stderr.removeAllListeners('data');
  }
  child.stdout.resume();
  child.stderr.resume();
  return child;
}

export async function stopProcess(child: ChildProcess): Promise<void> {
  // Ended already (by itself, or by a signal: then exitCode stays null and 'exit' will not come again).
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 5000).unref();
  });
}

/** Resolves once something accepts connections on the port (for programs that print nothing when ready). */
export async function waitForPort(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const connected = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (connected) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on port ${port} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
