// Loads and validates the declarative policy files. Any problem (a bad file, an unknown scope or
// permission, two routes that could match the same request) is an error naming the file and route:
// at start it stops the gateway; on reload the running policy is kept.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { isPermission, isScope, type Permission, type Scope } from './vocabulary.js';
import { compileTemplate, templatesOverlap, type Segment } from './path-template.js';
import { parseRateLimit, type RateLimitRule } from './rate-limit-rule.js';

export const UPSTREAMS = ['public', 'banking'] as const;
export type UpstreamName = (typeof UPSTREAMS)[number];
export const AUTH_SCHEMES = ['bearer', 'signature'] as const;
export type AuthScheme = (typeof AUTH_SCHEMES)[number];
/** Who checks a signed body against its Content-Digest: the gateway, or (decision mode) the upstream. */
export const DIGEST_CHECKS = ['gateway', 'upstream'] as const;
export type DigestCheck = (typeof DIGEST_CHECKS)[number];
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

export interface PolicyRoute {
  /** Stable id used in metrics and logs, e.g. "public:GET /v1/sales/{id}" ("public:GET api.example.com/v1/sales" with a host). */
  readonly id: string;
  readonly file: string;
  readonly method: string;
  /** Lower-case host (without port) the route is limited to, or null for any host. */
  readonly host: string | null;
  readonly template: string;
  readonly segments: readonly Segment[];
  readonly upstream: UpstreamName;
  readonly auth: AuthScheme;
  readonly scopes: readonly Scope[];
  readonly permissions: readonly Permission[];
  /** Requests per credential and window on this route; null: not limited. */
  readonly rateLimit: RateLimitRule | null;
  /**
   * 'upstream': when an edge proxy asks for a decision without sending the body (nginx
   * auth_request), the signature is checked over the Content-Digest header and the upstream checks
   * the body against it (the decision says so). The proxy always checks the body itself.
   */
  readonly digest: DigestCheck;
}

export class PolicyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PolicyError';
  }
}

type Raw = Record<string, unknown>;

function isMapping(value: unknown): value is Raw {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A value from the file, for a message; YAML aliases can make it circular, which JSON cannot show. */
function shown(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return Array.isArray(value) ? 'a self-referencing list' : 'a self-referencing mapping';
  }
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], where: string, field: string): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new PolicyError(`${where}: ${field} must be one of ${allowed.join(', ')}, got ${shown(value)}`);
  }
  return value as T;
}

function stringList(value: unknown, where: string, field: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw new PolicyError(`${where}: ${field} must be a list of names`);
  return value as string[];
}

const FILE_KEYS = new Set(['upstream', 'auth', 'host', 'rate_limit', 'digest', 'routes']);
const ROUTE_KEYS = new Set(['id', 'method', 'path', 'host', 'upstream', 'auth', 'scopes', 'permissions', 'rate_limit', 'digest']);

function rateLimitAt(value: unknown, where: string): RateLimitRule | null {
  try {
    return parseRateLimit(value);
  } catch (error) {
    throw new PolicyError(`${where}: ${(error as Error).message}`);
  }
}

function compileRoute(raw: unknown, index: number, file: string, defaults: Raw, defaultRateLimit: RateLimitRule | null): PolicyRoute {
  const at = `${file}, route ${index + 1}`;
  if (!isMapping(raw)) throw new PolicyError(`${at}: must be a mapping with method and path`);
  for (const key of Object.keys(raw)) if (!ROUTE_KEYS.has(key)) throw new PolicyError(`${at}: unknown field ${JSON.stringify(key)}`);
  const method = oneOf(typeof raw.method === 'string' ? raw.method.toUpperCase() : raw.method, METHODS, at, 'method');
  if (typeof raw.path !== 'string') throw new PolicyError(`${at}: path must be a path template such as /v1/sales/{id}`);
  const where = `${file}, route ${method} ${raw.path}`;
  let segments: Segment[];
  try {
    segments = compileTemplate(raw.path);
  } catch (error) {
    throw new PolicyError(`${where}: ${(error as Error).message}`);
  }
  const upstream = oneOf(raw.upstream ?? defaults.upstream, UPSTREAMS, where, 'upstream');
  const auth = oneOf(raw.auth ?? defaults.auth, AUTH_SCHEMES, where, 'auth');
  const hostValue = raw.host ?? defaults.host ?? null;
  if (hostValue !== null && (typeof hostValue !== 'string' || !/^[a-z0-9.-]+$/i.test(hostValue))) {
    throw new PolicyError(`${where}: host must be a host name without port or scheme`);
  }
  const scopes = stringList(raw.scopes, where, 'scopes');
  const permissions = stringList(raw.permissions, where, 'permissions');
  for (const s of scopes) if (!isScope(s)) throw new PolicyError(`${where}: unknown scope ${JSON.stringify(s)}`);
  for (const p of permissions) if (!isPermission(p)) throw new PolicyError(`${where}: unknown permission ${JSON.stringify(p)}`);
  if (auth === 'bearer' && (scopes.length === 0 || permissions.length > 0)) {
    throw new PolicyError(`${where}: a bearer route needs scopes (at least one) and no permissions`);
  }
  if (auth === 'signature' && (permissions.length === 0 || scopes.length > 0)) {
    throw new PolicyError(`${where}: a signature route needs permissions (at least one) and no scopes`);
  }
  const digest = oneOf(raw.digest ?? defaults.digest ?? 'gateway', DIGEST_CHECKS, where, 'digest');
  if (digest === 'upstream' && auth !== 'signature')
    throw new PolicyError(`${where}: digest: upstream applies to signature routes only (a bearer route's body is not signed)`);
  const name = basename(file).replace(/\.ya?ml$/, '');
  // An id labels metrics and logs: text (or a number), never a list or mapping turned into "[object Object]".
  if (raw.id !== undefined && !((typeof raw.id === 'string' && raw.id.trim() !== '') || (typeof raw.id === 'number' && Number.isFinite(raw.id)))) {
    throw new PolicyError(`${where}: id must be non-empty text`);
  }
  // Routes that differ only by host are distinct routes: the host is part of the default id.
  const id = raw.id === undefined ? `${name}:${method} ${hostValue === null ? '' : hostValue.toLowerCase()}${raw.path}` : String(raw.id);
  const rateLimit = raw.rate_limit === undefined ? defaultRateLimit : rateLimitAt(raw.rate_limit, where);
  // The id names the limit in the RateLimit response fields, where it is a quoted string of printable ASCII.
  if (rateLimit && !/^[\x20-\x7e]+$/.test(id))
    throw new PolicyError(`${where}: a rate-limited route needs an id of printable ASCII (it names the limit in the RateLimit headers)`);
  return Object.freeze({
    id,
    file,
    method,
    host: hostValue === null ? null : hostValue.toLowerCase(),
    template: raw.path,
    segments,
    upstream,
    auth,
    scopes: scopes as Scope[],
    permissions: permissions as Permission[],
    rateLimit,
    digest,
  });
}

export function parsePolicyFile(file: string, text: string): PolicyRoute[] {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (error) {
    throw new PolicyError(`${file}: not valid YAML: ${(error as Error).message}`);
  }
  if (!isMapping(doc)) throw new PolicyError(`${file}: must be a mapping with a routes list`);
  for (const key of Object.keys(doc)) if (!FILE_KEYS.has(key)) throw new PolicyError(`${file}: unknown field ${JSON.stringify(key)}`);
  if (!Array.isArray(doc.routes) || doc.routes.length === 0) throw new PolicyError(`${file}: routes must be a non-empty list`);
  const defaultRateLimit = rateLimitAt(doc.rate_limit, file);
  return doc.routes.map((raw, i) => compileRoute(raw, i, file, doc, defaultRateLimit));
}

function couldMatchSameRequest(a: PolicyRoute, b: PolicyRoute): boolean {
  if (a.method !== b.method) return false;
  if (a.host !== null && b.host !== null && a.host !== b.host) return false;
  return templatesOverlap(a.segments, b.segments);
}

/** Validates a whole set of routes together: ids unique, no two routes matching one request. */
export function validateRoutes(routes: PolicyRoute[]): PolicyRoute[] {
  const ids = new Map<string, PolicyRoute>();
  for (const route of routes) {
    const other = ids.get(route.id);
    if (other) throw new PolicyError(`${route.file}, route ${route.method} ${route.template}: id ${JSON.stringify(route.id)} is also used in ${other.file}`);
    ids.set(route.id, route);
  }
  for (let i = 0; i < routes.length; i++) {
    for (let j = i + 1; j < routes.length; j++) {
      const a = routes[i]!;
      const b = routes[j]!;
      if (couldMatchSameRequest(a, b)) {
        throw new PolicyError(`${b.file}, route ${b.method} ${b.template}: could match the same requests as ${a.file}, route ${a.method} ${a.template}`);
      }
    }
  }
  return routes;
}

/** Loads every *.yaml / *.yml file in the directory, in name order. */
export function loadPolicyDirectory(dir: string): PolicyRoute[] {
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => /\.ya?ml$/.test(n))
      .sort();
  } catch (error) {
    throw new PolicyError(`${dir}: cannot read the policy directory: ${(error as Error).message}`);
  }
  if (names.length === 0) throw new PolicyError(`${dir}: no policy files (*.yaml)`);
  const routes = names.flatMap((n) => {
    const file = join(dir, n);
    return parsePolicyFile(file, readFileSync(file, 'utf8'));
  });
  return validateRoutes(routes);
}
