// Last use of service accounts (time, address, key) and OAuth clients (time), kept cheap:
// remembered in memory and written to the store in one batch every few seconds, never as a write
// on the request path.
import type { Address } from '../net/cidr.js';
import type { ClientUse, CredentialStore, ServiceAccountUse } from './types.js';

/** A use as recorded on the request path: formatted only when it is written. */
interface PendingUse {
  at: number;
  address: Address | undefined;
  fingerprint: string;
}

/** A "last used" column a few seconds behind is fine; a write per signed request is not. */
export const USAGE_FLUSH_INTERVAL_MS = 5_000;

export class UsageRecorder {
  private pendingAccounts = new Map<string, PendingUse>();
  /** Client id -> when (epoch ms). */
  private pendingClients = new Map<string, number>();
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
    this.pendingAccounts.set(accessId, { at: Date.now(), address, fingerprint });
  }

  /** A token issued to the client, or a request with one of its tokens allowed. */
  recordClient(clientId: string): void {
    this.pendingClients.set(clientId, Date.now());
  }

  async flush(): Promise<void> {
    const accounts: ServiceAccountUse[] = Array.from(this.pendingAccounts, ([accessId, use]) => ({
      accessId,
      at: new Date(use.at).toISOString(),
      ip: use.address?.toString() ?? 'unknown',
      fingerprint: use.fingerprint,
    }));
    const clients: ClientUse[] = Array.from(this.pendingClients, ([clientId, at]) => ({ clientId, at: new Date(at).toISOString() }));
    this.pendingAccounts = new Map();
    this.pendingClients = new Map();
    await Promise.all([
      accounts.length === 0 ? undefined : this.store.recordServiceAccountUse(accounts),
      clients.length === 0 ? undefined : this.store.recordClientUse(clients),
    ]);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush().catch(() => {});
  }
}
