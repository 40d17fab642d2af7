// Last-used time and address of service accounts, kept cheap: remembered in memory and written
// to the store in one batch every few seconds, never as a write on the request path.
import type { Address } from '../net/cidr.js';
import type { CredentialStore, ServiceAccountUse } from '../store/types.js';

/** A use as recorded on the request path: formatted only when it is written. */
interface PendingUse {
  at: number;
  address: Address | undefined;
  fingerprint: string;
}

/** A "last used" column a few seconds behind is fine; a write per signed request is not. */
export const USAGE_FLUSH_INTERVAL_MS = 5_000;

export class UsageRecorder {
  private pending = new Map<string, PendingUse>();
  private readonly timer: NodeJS.Timeout;

  /** @param flushIntervalMs how often the pending uses are written (tests pass a short one). */
  constructor(
    private readonly store: CredentialStore,
    flushIntervalMs = USAGE_FLUSH_INTERVAL_MS,
  ) {
    this.timer = setInterval(() => void this.flush().catch(() => {}), flushIntervalMs);
    this.timer.unref();
  }

  /** A use of the account with the key of this fingerprint. */
  record(accessId: string, address: Address | undefined, fingerprint: string): void {
    this.pending.set(accessId, { at: Date.now(), address, fingerprint });
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const uses: ServiceAccountUse[] = [...this.pending].map(([accessId, use]) => ({
      accessId,
      at: new Date(use.at).toISOString(),
      ip: use.address?.toString() ?? 'unknown',
      fingerprint: use.fingerprint,
    }));
    this.pending = new Map();
    await this.store.recordServiceAccountUse(uses);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush().catch(() => {});
  }
}
