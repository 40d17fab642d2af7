// The Dockerfile's runtime stage without Docker: its files laid out in a directory as the image lays
// them out (the build's sources where their compiled files would be, run by tsx), and started with
// the stage's CMD and ENV, so that the gateway finds, or misses, exactly what the image holds. The
// workspace packages' built files (the client package's dist/) are the checkout's, which npm ci's
// prepare script built, as the build stage's npm ci builds them.
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { landing, type DockerStage } from './dockerfile.js';

export interface RuntimeStageProcess {
  child: ChildProcess;
  /** Everything the process wrote so far. */
  output(): string;
  /** Resolves once the gateway logs "gateway started", exits, or 30 s have passed. */
  started: Promise<void>;
  exited: Promise<void>;
  /** Kills the process if it still runs and removes the directory. */
  dispose(): Promise<void>;
}

/**
 * What npm ci would install: the repository's own packages, each linked in, except that a workspace
 * (a link into the repository itself) links to its directory in the layout, as npm ci links it in
 * the image.
 */
function linkNodeModules(root: string, dir: string): void {
  const link = (path: string) => {
    const real = relative(root, realpathSync(join(root, path)));
    const workspace = lstatSync(join(root, path)).isSymbolicLink() && !real.startsWith('..') && !real.startsWith(`node_modules${sep}`);
    symlinkSync(workspace ? join(dir, real) : join(root, path), join(dir, path));
  };
  mkdirSync(join(dir, 'node_modules'));
  for (const name of readdirSync(join(root, 'node_modules'))) {
    if (!name.startsWith('@')) {
      link(join('node_modules', name));
      continue;
    }
    mkdirSync(join(dir, 'node_modules', name));
    for (const scoped of readdirSync(join(root, 'node_modules', name))) link(join('node_modules', name, scoped));
  }
}

/** The runtime stage's files in a new directory. */
function layOut(root: string, stage: DockerStage, buildFiles: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'gw-runtime-'));
  // The first copy from the build stage is the compiler's output (deploy.test.ts checks the order).
  const compiled = stage.copies.find((copy) => copy.from !== undefined);
  for (const copy of stage.copies) {
    const target = landing(copy, copy.sources[0]!);
    if (copy.from === undefined) {
      for (const source of copy.sources) cpSync(join(root, source), join(dir, landing(copy, source)), { recursive: true });
    } else if (copy === compiled) {
      for (const file of buildFiles) cpSync(join(root, file), join(dir, target, file));
    } else {
      // A workspace's built files, at the same path in the checkout.
      cpSync(join(root, target), join(dir, target), { recursive: true });
    }
  }
  linkNodeModules(root, dir);
  return dir;
}

/** Starts the stage's CMD (node and its flags, with tsx for the compiled entry point's source) in its layout, with its ENV and then env. */
export function startRuntimeStage(root: string, stage: DockerStage, buildFiles: string[], env: Record<string, string>): RuntimeStageProcess {
  const [node, ...nodeArgs] = stage.cmd!.argv;
  if (node !== 'node') throw new Error(`the runtime stage's CMD starts ${node}, not node`);
  const entry = nodeArgs.pop()!;
  const dir = layOut(root, stage, buildFiles);
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', entry.replace(/\.js$/, '.ts')], {
    cwd: dir,
    env: { PATH: process.env.PATH, ...stage.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const started = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('gateway started')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
  const dispose = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  return { child, output: () => output, started, exited, dispose };
}
