// Reloads the policy when its files change (GATEWAY_POLICIES_POLL_SECONDS), for deployments that
// replace the directory as a whole: Kubernetes updates a mounted ConfigMap by swapping a symlink,
// which file-change events do not report. Every period the policy files' names and contents are
// hashed; a different hash reloads as SIGHUP does (a rejected policy keeps the running one, and
// is not tried again until the files change once more).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The hash of the directory's policy files (*.yaml, *.yml), or undefined when it cannot be read. */
function policyFilesHash(dir: string): string | undefined {
  try {
    const hash = createHash('sha256');
    for (const name of readdirSync(dir)
      .filter((n) => /\.ya?ml$/.test(n))
      .sort()) {
      hash
        .update(`${name}\0`)
        .update(readFileSync(join(dir, name)))
        .update('\0');
    }
    return hash.digest('hex');
  } catch {
    return undefined;
  }
}

export class PolicyPoller {
  private seen: string | undefined;

  constructor(
    private readonly dir: string,
    private readonly reload: () => void,
  ) {
    this.seen = policyFilesHash(dir);
  }

  /** One look at the files: reloads when they differ from the last look. */
  check(): void {
    const now = policyFilesHash(this.dir);
    if (now === undefined || now === this.seen) return;
    this.seen = now;
    this.reload();
  }

  /** Checks every `seconds`; returns what stops it. */
  every(seconds: number): () => void {
    const timer = setInterval(() => this.check(), seconds * 1000);
    timer.unref();
    return () => clearInterval(timer);
  }
}
