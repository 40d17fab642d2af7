// Every upstream a policy routes to needs a URL. Checked against the loaded routes, at start and on
// each reload; all the missing ones are reported together, each with the variable that sets it.
import type { SettingProblem } from './settings-error.js';
import { upstreamVariable, type Upstreams } from './upstream-settings.js';

/** A route, as far as its upstream goes. */
export interface UpstreamUse {
  readonly upstream: string;
  /** The policy file that declares the route. */
  readonly file: string;
}

/** The older variables of the shipped upstreams, named first since deployments know them. */
const OLDER_VARIABLES: Readonly<Record<string, string>> = { public: 'PUBLIC_UPSTREAM', banking: 'BANKING_UPSTREAM' };

/** One problem per upstream that routes name but that has no URL; empty when every one has. */
export function missingUpstreamUrls(routes: readonly UpstreamUse[], upstreams: Upstreams, environment: 'development' | 'production'): SettingProblem[] {
  const files = new Map<string, Set<string>>();
  for (const route of routes) {
    if (upstreams[route.upstream]?.url !== undefined) continue;
    files.set(route.upstream, (files.get(route.upstream) ?? new Set()).add(route.file));
  }
  return [...files].map(([name, named]) => {
    const variable = upstreamVariable(name);
    const older = OLDER_VARIABLES[name];
    const routedBy = `${[...named].join(', ')} ${named.size === 1 ? 'routes' : 'route'} to upstream ${name}`;
    const otherwise = older ? `or set ${variable}, or upstreams.${name} in the config file` : `or set upstreams.${name} in the config file`;
    return {
      setting: older ?? variable,
      problem: `is required${environment === 'production' ? ' in production' : ''}: ${routedBy}, which has no URL (${otherwise})`,
    };
  });
}
