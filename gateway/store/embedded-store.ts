// The embedded single-process store, used when REDIS_URL is unset (development, the README
// walkthrough): one adapter per port (memory/), sharing the store's clock and its snapshot. Durable
// records are snapshotted to one JSON file after every change (memory/snapshot-file.ts).
import { MemoryClientStore } from './memory/clients.js';
import type { MemoryContext } from './memory/context.js';
import { MemoryCounterStore } from './memory/counters.js';
import { MemoryServiceAccountStore } from './memory/service-accounts.js';
import { MemorySessionStore } from './memory/sessions.js';
import { MemorySharedValues } from './memory/shared-values.js';
import { readSnapshot, writeSnapshot } from './memory/snapshot-file.js';
import { PortedStore } from './ported-store.js';
import type { CredentialCounts, CredentialStore } from './types.js';

export interface EmbeddedStoreOptions {
  /** Epoch milliseconds; every expiry the store keeps is measured on it (tests pass a clock they move). */
  now?: () => number;
}

export class EmbeddedCredentialStore extends PortedStore implements CredentialStore {
  readonly kind = 'embedded' as const;
  protected readonly ports: {
    readonly clients: MemoryClientStore;
    readonly serviceAccounts: MemoryServiceAccountStore;
    readonly sharedValues: MemorySharedValues;
    readonly counters: MemoryCounterStore;
    readonly sessions: MemorySessionStore;
  };
  private readonly sweeper: NodeJS.Timeout;

  /** @param snapshotPath where durable records are kept; undefined keeps them in memory only. */
  constructor(
    private readonly snapshotPath?: string,
    options: EmbeddedStoreOptions = {},
  ) {
    super();
    const context: MemoryContext = { now: options.now ?? Date.now, persist: () => this.persist() };
    this.ports = {
      clients: new MemoryClientStore(context),
      serviceAccounts: new MemoryServiceAccountStore(context),
      sharedValues: new MemorySharedValues(context),
      counters: new MemoryCounterStore(context),
      sessions: new MemorySessionStore(context),
    };
    const snapshot = snapshotPath ? readSnapshot(snapshotPath) : undefined;
    if (snapshot) for (const durable of [this.ports.clients, this.ports.serviceAccounts, this.ports.sharedValues]) durable.restore(snapshot);
    // Housekeeping on a real timer: reads drop what has lapsed on the store's clock by themselves; the sweep frees what nobody reads.
    this.sweeper = setInterval(() => this.sweep(), 30_000);
    this.sweeper.unref();
  }

  private persist(): void {
    if (!this.snapshotPath) return;
    const { clients, serviceAccounts, sharedValues } = this.ports;
    writeSnapshot(this.snapshotPath, { ...clients.snapshot(), serviceAccounts: serviceAccounts.snapshot(), meta: sharedValues.snapshot() });
  }

  private sweep(): void {
    const { clients, serviceAccounts, counters, sessions } = this.ports;
    for (const adapter of [clients, serviceAccounts, counters, sessions]) adapter.sweep();
  }

  // Lifecycle: ready once made; nothing to reach, so nothing to repair. Every other method goes to
  // its port's adapter (ported-store.ts, memory/).
  async ping(): Promise<void> {}

  async countCredentials(): Promise<CredentialCounts> {
    return { clients: this.ports.clients.count, serviceAccounts: this.ports.serviceAccounts.count };
  }
  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }
}
