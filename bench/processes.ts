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

/**
 * A loopback port free now, for a process started next. Chosen below the ephemeral range: a port
 * from listen(0) is free again once probed, and the kernel may give it to any outgoing connection
 * (to Redis, an upstream) before the process binds it; ports below the range it never hands out.
 */
export async function freePort(): Promise<number> {
  const [low] = ephemeralRange();
  const base = Math.max(1024, low - 12_000);
  for (let attempt = 0; attempt < 50; attempt++) {
    const candidate = base + Math.floor(Math.random() * (low - base));
    if (await canListen(candidate)) return candidate;
  }
  throw new Error(`no free loopback port below ${low} in 50 attempts`);
}

/** Starts a node script and resolves once its output contains `readyText`. */
export async function startProcess(args: string[], env: NodeJS.ProcessEnv, readyText: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(readyText)) resolve();
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}:\n${output}`)));
    setTimeout(() => reject(new Error(`${args.join(' ')} did not start:\n${output}`)), 20_000).unref();
  });
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
