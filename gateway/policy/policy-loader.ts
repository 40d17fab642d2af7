// Loads and validates the declarative policy files. The shape of each file is checked against the
// published schema (policy-shape.ts); the rules a schema cannot state are checked here: a route's
// scheme against its scopes or permissions, names that no file declares, two routes that could match
// the same request. Any problem is an error naming the file and route: at start it stops the
// gateway; on reload the running policy is kept. Whether each upstream a route names has a URL is
// checked against the settings (config/routed-upstreams.ts), which know the variable that sets it.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { compileTemplate, templatesOverlap, type Segment } from './path-template.js';
import { PolicyError } from './policy-error.js';
import type { AuthScheme, DigestCheck, MessageSigning, PolicyFileShape, PolicyRouteShape } from './policy-schema.js';
import { checkPolicyShape } from './policy-shape.js';
import { parseRateLimit, type RateLimitRule } from './rate-limit-rule.js';
import { mergeVocabularies, type DeclaredVocabulary, type PermissionEntry, type Vocabulary, type VocabularyEntry } from './vocabulary.js';

export { PolicyError } from './policy-error.js';
export {
  AUTH_SCHEMES,
  DIGEST_CHECKS,
  MESSAGE_SIGNING,
  UPSTREAM_NAME_PATTERN,
  type AuthScheme,
  type DigestCheck,
  type MessageSigning,
} from './policy-schema.js';

export interface PolicyRoute {
  /** Stable id used in metrics and logs, e.g. "public:GET /v1/sales/{id}" ("public:GET api.example.com/v1/sales" with a host). */
  readonly id: string;
  readonly file: string;
  readonly method: string;
  /** Lower-case host (without port) the route is limited to, or null for any host. */
  readonly host: string | null;
  readonly template: string;
  readonly segments: readonly Segment[];
  /** The name of the upstream it forwards to (the settings give its URL). */
  readonly upstream: string;
  readonly auth: AuthScheme;
  /** Declared scopes (the policy's vocabulary). */
  readonly scopes: readonly string[];
  /** Declared permissions (the policy's vocabulary). */
  readonly permissions: readonly string[];
  /** Requests per credential and window on this route; null: not limited. */
  readonly rateLimit: RateLimitRule | null;
  /**
   * 'upstream': when an edge proxy asks for a decision without sending the body (nginx
   * auth_request), the signature is checked over the Content-Digest header and the upstream checks
   * the body against it (the decision says so). The proxy always checks the body itself.
   */
  readonly digest: DigestCheck;
  /**
   * 'fapi-2' (bearer routes): the client signs each request with one of its registered keys (the
   * FAPI 2.0 HTTP signature profile) and the gateway signs each response (docs/message-signing.md).
   */
  readonly messageSigning: MessageSigning;
}

/** One file: its routes and the scopes and permissions it declares. */
export interface PolicyFile {
  readonly file: string;
  readonly routes: readonly PolicyRoute[];
  readonly declared: DeclaredVocabulary;
}

/** The policy the gateway enforces: every file's routes, and the vocabulary they are written in. */
export interface Policy {
  readonly routes: readonly PolicyRoute[];
  readonly vocabulary: Vocabulary;
}

function rateLimitAt(value: unknown, where: string): RateLimitRule | null {
  try {
    return parseRateLimit(value);
  } catch (error) {
    throw new PolicyError(`${where}: ${(error as Error).message}`);
  }
}

function compileRoute(raw: PolicyRouteShape, file: string, defaults: PolicyFileShape, defaultRateLimit: RateLimitRule | null): PolicyRoute {
  const method = raw.method.toUpperCase();
  const where = `${file}, route ${method} ${raw.path}`;
  let segments: Segment[];
  try {
    segments = compileTemplate(raw.path);
  } catch (error) {
    throw new PolicyError(`${where}: ${(error as Error).message}`);
  }
  const upstream = raw.upstream ?? defaults.upstream;
  if (upstream === undefined) throw new PolicyError(`${where}: upstream is required: name it on the route or for the whole file`);
  const auth = raw.auth ?? defaults.auth;
  if (auth === undefined) throw new PolicyError(`${where}: auth is required (bearer or signature): give it on the route or for the whole file`);
  const host = (raw.host ?? defaults.host)?.toLowerCase() ?? null;
  const scopes = raw.scopes ?? [];
  const permissions = raw.permissions ?? [];
  if (auth === 'bearer' && (scopes.length === 0 || permissions.length > 0)) {
    throw new PolicyError(`${where}: a bearer route needs scopes (at least one) and no permissions`);
  }
  if (auth === 'signature' && (permissions.length === 0 || scopes.length > 0)) {
    throw new PolicyError(`${where}: a signature route needs permissions (at least one) and no scopes`);
  }
  const messageSigning = raw.message_signing ?? defaults.message_signing ?? 'none';
  if (messageSigning !== 'none' && auth !== 'bearer')
    throw new PolicyError(`${where}: message_signing applies to bearer routes only (a signature route is signed by its service account already)`);
  const digest = raw.digest ?? defaults.digest ?? 'gateway';
  if (digest === 'upstream' && auth !== 'signature' && messageSigning === 'none')
    throw new PolicyError(
      `${where}: digest: upstream applies to signed routes only (auth: signature, or message_signing: fapi-2): a plain bearer route's body is not signed`,
    );
  const name = basename(file).replace(/\.ya?ml$/, '');
  // Routes that differ only by host are distinct routes: the host is part of the default id.
  const id = raw.id === undefined ? `${name}:${method} ${host ?? ''}${raw.path}` : String(raw.id);
  const rateLimit = raw.rate_limit === undefined ? defaultRateLimit : rateLimitAt(raw.rate_limit, where);
  // The id names the limit in the RateLimit response fields, where it is a quoted string of printable ASCII.
  if (rateLimit && !/^[\x20-\x7e]+$/.test(id))
    throw new PolicyError(`${where}: a rate-limited route needs an id of printable ASCII (it names the limit in the RateLimit headers)`);
  return Object.freeze({
    id,
    file,
    method,
    host,
    template: raw.path,
    segments,
    upstream,
    auth,
    scopes: Object.freeze([...scopes]),
    permissions: Object.freeze([...permissions]),
    rateLimit,
    digest,
    messageSigning,
  });
}

/** A declaration as written (name: description, or name: { description, ... }) as an entry. */
function declared(file: string, shape: PolicyFileShape): DeclaredVocabulary {
  const describe = (value: string | { description: string }) => (typeof value === 'string' ? value : value.description);
  return {
    scopes: Object.entries(shape.scopes ?? {}).map(([name, value]): VocabularyEntry => Object.freeze({ name, description: describe(value), file })),
    permissions: Object.entries(shape.permissions ?? {}).map(([name, value]): PermissionEntry =>
      Object.freeze({ name, description: describe(value), movesMoney: typeof value !== 'string' && value.moves_money === true, file }),
    ),
  };
}

/** One file on its own: its shape, and each route's own rules. Names are checked with all the files (assemblePolicy). */
export function parsePolicyFile(file: string, text: string): PolicyFile {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (error) {
    throw new PolicyError(`${file}: not valid YAML: ${(error as Error).message}`);
  }
  checkPolicyShape(file, doc);
  const defaultRateLimit = rateLimitAt(doc.rate_limit, file);
  return { file, routes: doc.routes.map((raw) => compileRoute(raw, file, doc, defaultRateLimit)), declared: declared(file, doc) };
}

/** A few of the names, for a message: a long vocabulary is not listed whole. */
function someOf(names: readonly string[], most = 12): string {
  if (names.length === 0) return 'none';
  return names.length <= most ? names.join(', ') : `${names.slice(0, most).join(', ')} and ${names.length - most} more`;
}

function routeWhere(route: PolicyRoute): string {
  return `${route.file}, route ${route.method} ${route.template}`;
}

function checkDeclared(routes: readonly PolicyRoute[], vocabulary: Vocabulary): void {
  for (const route of routes) {
    for (const [kind, names, entries] of [
      ['scope', route.scopes, vocabulary.scopes],
      ['permission', route.permissions, vocabulary.permissions],
    ] as const) {
      const undeclared = names.find((name) => !entries.has(name));
      if (undeclared !== undefined)
        throw new PolicyError(
          `${routeWhere(route)}: unknown ${kind} ${JSON.stringify(undeclared)}: declare it under ${kind}s: in a policy file (declared: ${someOf([...entries.keys()])})`,
        );
    }
  }
}

function couldMatchSameRequest(a: PolicyRoute, b: PolicyRoute): boolean {
  if (a.method !== b.method) return false;
  if (a.host !== null && b.host !== null && a.host !== b.host) return false;
  return templatesOverlap(a.segments, b.segments);
}

/** Validates a whole set of routes together: ids unique, no two routes matching one request. */
export function validateRoutes<T extends readonly PolicyRoute[]>(routes: T): T {
  const ids = new Map<string, PolicyRoute>();
  for (const route of routes) {
    const other = ids.get(route.id);
    if (other) throw new PolicyError(`${routeWhere(route)}: id ${JSON.stringify(route.id)} is also used in ${other.file}`);
    ids.set(route.id, route);
  }
  for (let i = 0; i < routes.length; i++) {
    for (let j = i + 1; j < routes.length; j++) {
      const a = routes[i]!;
      const b = routes[j]!;
      if (couldMatchSameRequest(a, b)) throw new PolicyError(`${routeWhere(b)}: could match the same requests as ${routeWhere(a)}`);
    }
  }
  return routes;
}

/**
 * The files together: their vocabulary (a name declared twice must mean the same), every route
 * naming declared names only, and no two routes matching one request.
 */
export function assemblePolicy(files: readonly PolicyFile[]): Policy {
  const vocabulary = mergeVocabularies(files.map((f) => f.declared));
  const routes = Object.freeze(files.flatMap((f) => f.routes));
  checkDeclared(routes, vocabulary);
  return Object.freeze({ routes: validateRoutes(routes), vocabulary });
}

/** Loads every *.yaml / *.yml file in the directory, in name order. */
export function loadPolicies(dir: string): Policy {
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => /\.ya?ml$/.test(n))
      .sort();
  } catch (error) {
    throw new PolicyError(`${dir}: cannot read the policy directory: ${(error as Error).message}`);
  }
  if (names.length === 0) throw new PolicyError(`${dir}: no policy files (*.yaml)`);
  const files = names.map((n) => {
    const file = join(dir, n);
    return parsePolicyFile(file, readFileSync(file, 'utf8'));
  });
  return assemblePolicy(files);
}
