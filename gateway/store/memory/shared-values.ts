// Shared values in the embedded store: durable (in the snapshot), and watched within the process.
import type { SharedValues } from '../types.js';
import type { MemoryContext } from './context.js';
import type { Snapshot } from './snapshot-file.js';

export class MemorySharedValues implements SharedValues {
  private readonly meta = new Map<string, string>();
  private readonly metaWatchers = new Map<string, Set<() => void>>();

  constructor(private readonly context: MemoryContext) {}

  restore(snapshot: Snapshot): void {
    for (const [k, v] of Object.entries(snapshot.meta ?? {})) this.meta.set(k, v);
  }

  snapshot(): Snapshot['meta'] {
    return Object.fromEntries(this.meta);
  }

  async getMeta(name: string): Promise<string | null> {
    return this.meta.get(name) ?? null;
  }

  async compareAndSetMeta(name: string, expected: string | null, value: string): Promise<boolean> {
    if ((this.meta.get(name) ?? null) !== expected) return false;
    this.meta.set(name, value);
    this.context.persist();
    // One process: every watcher hears of the change before the writer's call returns.
    for (const onChange of [...(this.metaWatchers.get(name) ?? [])]) onChange();
    return true;
  }

  watchMeta(name: string, onChange: () => void): () => void {
    const watchers = this.metaWatchers.get(name) ?? new Set();
    this.metaWatchers.set(name, watchers.add(onChange));
    return () => {
      watchers.delete(onChange);
      if (watchers.size === 0 && this.metaWatchers.get(name) === watchers) this.metaWatchers.delete(name);
    };
  }
}
