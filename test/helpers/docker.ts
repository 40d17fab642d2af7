// The docker command for the deployment test: whether this machine can build an image from given
// base images (a daemon answers, and each base image is here or can be pulled), and the calls the
// test makes, each bounded in time.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** Runs docker with the arguments and returns its standard output; rejects on failure or after timeoutMs. */
export async function docker(args: string[], timeoutMs: number): Promise<string> {
  const { stdout } = await execFileAsync('docker', args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

function reason(error: unknown): string {
  const failure = error as { code?: string; killed?: boolean; stderr?: string; message?: string };
  if (failure.code === 'ENOENT') return 'no docker command';
  if (failure.killed) return 'timed out';
  return (failure.stderr || failure.message || String(error)).trim().split('\n')[0]!;
}

/** Why an image FROM these base images cannot be built here, or undefined when it can. */
export async function dockerCannotBuild(baseImages: string[]): Promise<string | undefined> {
  try {
    await docker(['version', '--format', '{{.Server.Version}}'], 10_000);
  } catch (error) {
    return `no Docker daemon answers (${reason(error)})`;
  }
  for (const image of new Set(baseImages)) {
    try {
      await docker(['image', 'inspect', image], 10_000);
      continue;
    } catch {
      // Not here yet: a pull needs a registry, which an offline machine cannot reach.
    }
    try {
      await docker(['pull', '--quiet', image], 120_000);
    } catch (error) {
      return `the base image ${image} is not here and cannot be pulled (${reason(error)})`;
    }
  }
  return undefined;
}
