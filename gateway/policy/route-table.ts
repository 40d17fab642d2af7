// The route table the pipeline matches against, with the vocabulary its routes are written in, and
// the holder that swaps both on reload so that in-flight requests keep the table they started with.
import type { Policy, PolicyRoute } from './policy-loader.js';
import { templateMatches } from './path-template.js';
import type { Vocabulary } from './vocabulary.js';

export class RouteTable {
  private readonly byMethod = new Map<string, PolicyRoute[]>();
  readonly routes: readonly PolicyRoute[];
  /** The declared scopes and permissions: what credentials may be granted. */
  readonly vocabulary: Vocabulary;

  constructor(policy: Policy) {
    this.routes = policy.routes;
    this.vocabulary = policy.vocabulary;
    for (const route of this.routes) {
      const list = this.byMethod.get(route.method) ?? [];
      list.push(route);
      this.byMethod.set(route.method, list);
    }
  }

  /** The one route for this request, or undefined. Load-time validation guarantees at most one. */
  match(method: string, host: string, segments: readonly string[]): PolicyRoute | undefined {
    const candidates = this.byMethod.get(method);
    if (!candidates) return undefined;
    for (const route of candidates) {
      if (route.host !== null && route.host !== host) continue;
      if (templateMatches(route.segments, segments)) return route;
    }
    return undefined;
  }
}

export interface PolicyReloadResult {
  ok: boolean;
  routes: number;
  error?: string;
}

/** Told of each table a reload put in place of another. */
export type PolicyReplaced = (previous: RouteTable, next: RouteTable) => void;

/** Holds the active table; reload replaces it only when the new policy is valid. */
export class PolicyHolder {
  private table: RouteTable;
  private readonly listeners: PolicyReplaced[] = [];

  constructor(private readonly load: () => Policy) {
    this.table = new RouteTable(load());
  }

  get current(): RouteTable {
    return this.table;
  }

  /** Calls `listener` after each successful reload (the admin listener reports credentials holding a name the reload removed). */
  onReplaced(listener: PolicyReplaced): void {
    this.listeners.push(listener);
  }

  reload(): PolicyReloadResult {
    let next: RouteTable;
    try {
      next = new RouteTable(this.load());
    } catch (error) {
      return { ok: false, routes: this.table.routes.length, error: (error as Error).message };
    }
    const previous = this.table;
    this.table = next;
    for (const listener of this.listeners) listener(previous, next);
    return { ok: true, routes: next.routes.length };
  }
}
