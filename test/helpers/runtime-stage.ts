// The Dockerfile's runtime stage without Docker: its files laid out in a directory as the image lays
// them out (the build's sources where their compiled files would be, run by tsx), and started with
// the stage's CMD and ENV, so that the gateway finds, or misses, exactly what the image holds.
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

/** The runtime stage's files in a new directory. */
function layOut(root: string, stage: DockerStage, buildFiles: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'gw-runtime-'));
  for (const copy of stage.copies) {
    if (copy.from === undefined) {
      for (const source of copy.sources) cpSync(join(root, source), join(dir, landing(copy, source)), { recursive: true });
    } else {
      const outDir = landing(copy, copy.sources[0]!);
      for (const file of buildFiles) cpSync(join(root, file), join(dir, outDir, file));
    }
  }
  // What npm ci would install: the repository's own tree.
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
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
