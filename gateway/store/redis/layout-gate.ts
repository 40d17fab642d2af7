// Until the key layout is checked (and migrated, redis-layout-migration.ts), the store's operations
// fail as unavailable rather than read an old layout. The check runs on connect, and again on each
// reconnection until it has succeeded once.
import type { RedisClient } from '../redis-connection.js';
import type { RedisKeys } from '../redis-keys.js';
import { migrateLayout, OldLayoutOnClusterError, type MigrationResult } from '../redis-layout-migration.js';
import { StoreUnavailableError } from '../store-unavailable-error.js';

const LAYOUT_UNCHECKED = new Error('the key layout of the store is not checked yet');

export class LayoutGate {
  private layoutCheck: Promise<void> | undefined;
  private layoutReady = false;
  /** An old layout on a Cluster: the store stays unavailable, naming it, until an operator acts. */
  private layoutError: OldLayoutOnClusterError | undefined;
  /** Old-layout revocation marks are honoured until then (epoch ms); see redis-layout-migration.ts. */
  private legacyUntil = 0;
  private migrated: MigrationResult | undefined;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
  ) {}

  /** What the layout check moved, once it ran. */
  get migration(): MigrationResult | undefined {
    return this.migrated;
  }

  /** Until when (epoch ms) revocation marks of the old layout may still exist and are read. */
  get legacyRevocationsUntil(): number {
    return this.legacyUntil;
  }

  /** Checks the layout once (a check in progress is shared; a failed one runs again next time). */
  check(): Promise<void> {
    this.layoutCheck ??= migrateLayout(this.redis, this.keys).then(
      (result) => {
        this.migrated = result;
        this.legacyUntil = result.legacyRevocationsUntil;
        this.layoutReady = true;
      },
      (error: unknown) => {
        if (error instanceof OldLayoutOnClusterError) this.layoutError = error;
        else this.layoutCheck = undefined;
        throw error;
      },
    );
    return this.layoutCheck;
  }

  /** Throws StoreUnavailableError until the layout is checked. */
  assertReady(): void {
    if (!this.layoutReady) throw new StoreUnavailableError(this.layoutError ?? LAYOUT_UNCHECKED);
  }
}
