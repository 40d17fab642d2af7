// Every upstream a policy routes to needs a URL. Checked against the loaded routes, at start and on
// each reload; all the missing ones are reported together, each with the variable that sets it and
// the files and routes naming it. The policy loader does not check upstreams: only here is it known
// which variable would give one a URL.
import type { SettingProblem } from './settings-error.js';
import { upstreamVariable, type Upstreams } from './upstream-settings.js';

/** A route, as far as its upstream goes. */
export interface UpstreamUse {
  readonly upstream: string;
  /** The policy file that declares the route. */
  readonly file: string;
  readonly method: string;
  /** Its path template, as written (/v1/sales/{id}). */
  readonly template: string;
}

/** The older variables of the shipped upstreams, named first since deployments know them. */
const OLDER_VARIABLES: ReadonlyMap<string, string> = new Map([
  ['public', 'PUBLIC_UPSTREAM'],
  ['banking', 'BANKING_UPSTREAM'],
]);
/** Routes named per upstream; the rest are counted (a file may route hundreds). */
const ROUTES_NAMED = 3;
/** Configured upstreams named when a route names none of them. */
const CONFIGURED_NAMED = 20;

/** The items by key, in first-seen order (Map.groupBy needs Node 21). */
function grouped<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}

/** "a.yaml, routes GET /a, GET /b; b.yaml, route GET /c and 4 more": every file, the first few routes. */
function filesAndRoutes(uses: readonly UpstreamUse[]): string {
  const files = grouped(uses, (use) => use.file);
  let named = 0;
  return [...files]
    .map(([file, routes]) => {
      const shown = routes.slice(0, Math.max(0, ROUTES_NAMED - named));
      named += shown.length;
      const more = routes.length - shown.length;
      if (shown.length === 0) return `${file}, ${more} ${more === 1 ? 'route' : 'routes'}`;
      const listed = shown.map((route) => `${route.method} ${route.template}`).join(', ');
      return `${file}, ${routes.length === 1 ? 'route' : 'routes'} ${listed}${more > 0 ? ` and ${more} more` : ''}`;
    })
    .join('; ');
}

/** What the settings lack: a URL, or the upstream itself (then which ones they have, for a misspelt name). */
function lacking(name: string, upstreams: Upstreams): string {
  if (Object.hasOwn(upstreams, name)) return `upstream ${name} has no URL`;
  const configured = Object.keys(upstreams).sort();
  const some = configured.length <= CONFIGURED_NAMED ? configured.join(', ') : `${configured.slice(0, CONFIGURED_NAMED).join(', ')} and ${configured.length - CONFIGURED_NAMED} more`;
  return `upstream ${name} is not configured (configured: ${some || 'none'})`;
}

/** One problem per upstream that routes name but that has no URL; empty when every one has. */
export function missingUpstreamUrls(routes: readonly UpstreamUse[], upstreams: Upstreams, environment: 'development' | 'production'): SettingProblem[] {
  const missing = grouped(
    routes.filter((route) => !Object.hasOwn(upstreams, route.upstream) || upstreams[route.upstream]!.url === undefined),
    (route) => route.upstream,
  );
  return [...missing].map(([name, uses]) => {
    const variable = upstreamVariable(name);
    const older = OLDER_VARIABLES.get(name);
    const otherwise = older ? `or set ${variable}, or upstreams.${name} in the config file` : `or set upstreams.${name} in the config file`;
    return {
      setting: older ?? variable,
      problem: `is required${environment === 'production' ? ' in production' : ''} (${otherwise}): ${lacking(name, upstreams)}; routes to it: ${filesAndRoutes(uses)}`,
    };
  });
}
