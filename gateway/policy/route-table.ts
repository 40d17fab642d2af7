// The route table the pipeline matches against, and the holder that swaps it on reload so that
// in-flight requests keep the table they started with.
import type { PolicyRoute } from './policy-loader.js';
import { templateMatches } from './path-template.js';

export class RouteTable {
  private readonly byMethod = new Map<string, PolicyRoute[]>();

  constructor(readonly routes: readonly PolicyRoute[]) {
    for (const route of routes) {
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

/** Holds the active table; reload replaces it only when the new policy is valid. */
export class PolicyHolder {
  private table: RouteTable;

  constructor(private readonly load: () => PolicyRoute[]) {
    this.table = new RouteTable(load());
  }

  get current(): RouteTable {
    return this.table;
  }

  reload(): PolicyReloadResult {
    try {
      this.table = new RouteTable(this.load());
      return { ok: true, routes: this.table.routes.length };
    } catch (error) {
      return { ok: false, routes: this.table.routes.length, error: (error as Error).message };
    }
  }
}
