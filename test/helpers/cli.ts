// Runs gatewayctl against a test gateway: in process for most cases (a Node process per case made
// the CLI tests slow), or as a separate process where a test is about the process itself.
import { spawn } from 'node:child_process';
import { Readable } from 'node:stream';
import { COMMANDS } from '../../gateway/cli/commands/index.js';
import type { CliContext } from '../../gateway/cli/context.js';
import { runCli as runInProcess } from '../../gateway/cli/program.js';
import { REPO_ROOT } from './gateway.js';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * gatewayctl run in this process, through the same parser and commands as the binary. `env` is the
 * whole environment it sees (never this process's own), and `input` its stdin, a pipe as the
 * separate process's was.
 */
export async function runCli(args: string[], env: NodeJS.ProcessEnv = {}, input?: string): Promise<CliResult> {
  const stdout: Buffer[] = [];
  let stderr = '';
  const context: CliContext = {
    out: (text) => void stdout.push(Buffer.from(text)),
    err: (text) => void (stderr += text),
    outBytes: (bytes) => void stdout.push(Buffer.from(bytes)),
    env: { ...env },
    stdin: () => ({ isTTY: false, stream: Readable.from(input ? [Buffer.from(input)] : []) }),
  };
  const code = await runInProcess(args, COMMANDS, context);
  return { code, stdout: Buffer.concat(stdout).toString(), stderr };
}

/**
 * gatewayctl from source as a separate process (bin/gatewayctl runs the same main.ts, compiled):
 * for what only a process shows, main.ts's process context, the exit code the shell gets, the bytes
 * on the real stdout, and a real stdin pipe. Its environment is PATH and HOME plus `env`.
 */
export function runCliProcess(args: string[], env: NodeJS.ProcessEnv = {}, input?: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', `${REPO_ROOT}gateway/cli/main.ts`, ...args], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const stdout: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(stdout).toString(), stderr }));
    child.stdin.end(input ?? '');
  });
}
