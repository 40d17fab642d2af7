// The shipped edge configurations (deploy/edge) against the gateway proxy's header rule
// (gateway/pipeline/mutate.ts), the one source: whatever the rule drops and names in its lists
// (identity, consumed credentials, client routing claims and overrides) must not reach the API
// from the client through any edge proxy, and nothing the rule forwards may be removed. Each file
// is read into the same model, EdgeStages (one small helper per proxy: Envoy, Traefik, nginx,
// Caddy), and checked by the same
// assertions; what only one proxy has (Envoy's regexes and X-Forwarded-For) is checked beside it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import t, { type Test } from 'tap';
import { parse } from 'yaml';
import { settingsFrom } from '../../gateway/config/settings.js';
import { CLIENT_ROUTING_HEADERS, CONSUMED_CREDENTIAL_HEADERS, forwardableRequestHeader, IDENTITY_HEADERS } from '../../gateway/pipeline/mutate.js';
import { droppedOnlyByPattern } from '../../gateway/decision/conventions.js';
import { REPO_ROOT } from '../helpers/gateway.js';
import { holds } from '../helpers/property.js';

/** What an edge configuration does with a header the client sent (lower-case names). */
interface EdgeStages {
  readonly file: string;
  /** Removed before the decision is asked: neither the decision nor the API sees it. */
  removedBeforeDecision(name: string): boolean;
  /** Removed after the decision, on the way to the API. */
  removedAfterDecision(name: string): boolean;
  /** The API gets this header only as the decision (or the edge itself) set it, never the client's. */
  identityFromDecisionOnly(name: string): boolean;
  /** Every name the file removes or replaces one by one (not by pattern). */
  readonly exactNames: readonly string[];
}

const BENIGN = ['content-type', 'accept', 'content-digest', 'content-length', 'user-agent', 'x-app-request-tag'];
/** The header-name alphabet (RFC 9110 tchar), lower case as proxies hand names on. */
const TCHAR = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyz".split('');

function readYaml(file: string): unknown {
  return parse(readFileSync(join(REPO_ROOT, file), 'utf8'));
}

// Small accessors for the parsed YAML: each throws when the file does not have the expected shape,
// so an edit that moves a setting fails the test instead of passing it by accident.
function record(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${what} is not a mapping`);
  return value as Record<string, unknown>;
}
function list(value: unknown, what: string): unknown[] {
  if (!Array.isArray(value)) throw new Error(`${what} is not a list`);
  return value;
}
function optionalList(value: unknown, what: string): unknown[] {
  return value === undefined ? [] : list(value, what);
}
function text(value: unknown, what: string): string {
  if (typeof value !== 'string') throw new Error(`${what} is not a string`);
  return value;
}

// Envoy: the header_mutation filter before ext_authz removes by exact name and by RE2 pattern; the
// route's request_headers_to_remove runs at the router, after the decision; allowed_upstream_headers
// replaces a header only when the decision sets it.
interface EnvoyConfig {
  file: string;
  hcm: Record<string, unknown>;
  extAuthz: Record<string, unknown>;
  filterNames: string[];
  beforeDecision: Record<string, unknown>[];
  exactBefore: string[];
  patterns: RegExp[];
  regexSources: string[];
  routes: Record<string, unknown>[];
  fromDecision: string[];
}

/**
 * The HTTP service (envoy.yaml) copies the identity headers allowed_upstream_headers names; the gRPC
 * service (envoy-grpc.yaml) sets those its answer's ok_response.headers carry, which are the identity
 * headers and nothing else (test/decision/grpc-ext-authz.test.ts).
 */
function envoyConfig(file: string): EnvoyConfig {
  const doc = record(readYaml(file), file);
  const listener = record(list(record(doc.static_resources, 'static_resources').listeners, 'listeners')[0], 'listener');
  const filter = record(list(record(list(listener.filter_chains, 'filter_chains')[0], 'filter chain').filters, 'filters')[0], 'network filter');
  const hcm = record(filter.typed_config, 'http_connection_manager');
  const httpFilters = list(hcm.http_filters, 'http_filters').map((f) => record(f, 'http filter'));
  const filterNames = httpFilters.map((f) => text(f.name, 'filter name'));
  const extAuthz = httpFilters.find((f) => f.name === 'envoy.filters.http.ext_authz');
  if (!extAuthz) throw new Error(`${file} has no ext_authz filter`);
  const mutationsBefore = httpFilters.slice(0, httpFilters.indexOf(extAuthz)).filter((f) => f.name === 'envoy.filters.http.header_mutation');
  const beforeDecision = mutationsBefore.flatMap((f) =>
    list(record(record(f.typed_config, 'header_mutation').mutations, 'mutations').request_mutations, 'request_mutations').map((m) => record(m, 'mutation')),
  );
  const exactBefore = beforeDecision.filter((m) => m.remove !== undefined).map((m) => text(m.remove, 'remove'));
  const regexSources = beforeDecision
    .filter((m) => m.remove_on_match !== undefined)
    .map((m) =>
      text(
        record(record(record(m.remove_on_match, 'remove_on_match').key_matcher, 'key_matcher').safe_regex, 'safe_regex (the only matcher the test reads)')
          .regex,
        'regex',
      ),
    );
  const routeConfig = record(hcm.route_config, 'route_config');
  const routes = list(routeConfig.virtual_hosts, 'virtual_hosts').flatMap((vh) =>
    list(record(vh, 'virtual host').routes, 'routes').map((r) => record(r, 'route')),
  );
  const config = record(extAuthz.typed_config, 'ext_authz');
  const fromDecision =
    config.grpc_service !== undefined
      ? [...IDENTITY_HEADERS]
      : list(
          record(
            record(record(config.http_service, 'http_service').authorization_response, 'authorization_response').allowed_upstream_headers,
            'allowed_upstream_headers',
          ).patterns,
          'patterns',
        ).map((p) => text(record(p, 'pattern').exact, 'exact pattern'));
  return {
    file,
    hcm,
    extAuthz: config,
    filterNames,
    beforeDecision,
    exactBefore,
    patterns: regexSources.map((source) => new RegExp(source)),
    regexSources,
    routes,
    fromDecision,
  };
}

/** True when every route removes the name at the router (route-level request_headers_to_remove). */
function removedByEveryRoute(routes: Record<string, unknown>[], name: string): boolean {
  return routes.length > 0 && routes.every((route) => optionalList(route.request_headers_to_remove, 'request_headers_to_remove').includes(name));
}

/** Envoy sets x-request-id itself on every request from outside: a client's never survives the edge. */
function envoyReplacesRequestId(hcm: Record<string, unknown>): boolean {
  return hcm.use_remote_address === true && hcm.preserve_external_request_id !== true && hcm.generate_request_id !== false;
}

function envoyStages(config: EnvoyConfig): EdgeStages {
  const removedBeforeDecision = (name: string) => config.exactBefore.includes(name) || config.patterns.some((pattern) => pattern.test(name));
  return {
    file: config.file,
    removedBeforeDecision,
    removedAfterDecision: (name) => removedByEveryRoute(config.routes, name),
    identityFromDecisionOnly: (name) =>
      config.fromDecision.includes(name) && (removedBeforeDecision(name) || (name === 'x-request-id' && envoyReplacesRequestId(config.hcm))),
    // x-envoy-* is Envoy's own namespace, outside the rule: envoy-grpc.yaml removes a client's
    // x-envoy-auth-partial-body, Envoy's word to the decision that the body came.
    exactNames: [
      ...config.exactBefore.filter((name) => !name.startsWith('x-envoy-')),
      ...config.routes.flatMap((r) => optionalList(r.request_headers_to_remove, 'request_headers_to_remove').map((n) => text(n, 'name'))),
    ],
  };
}

// Traefik: forwardAuth deletes each authResponseHeaders name from the client's request and copies the
// decision's; a headers middleware removes a header whose custom value is "". A middleware acts
// before or after the decision by its place in the router's list.
interface TraefikConfig {
  middlewares: Record<string, Record<string, unknown>>;
  chains: string[][];
}

function traefikConfig(): TraefikConfig {
  const http = record(record(readYaml('deploy/edge/traefik.yaml'), 'traefik.yaml').http, 'http');
  const middlewares = Object.fromEntries(Object.entries(record(http.middlewares, 'middlewares')).map(([name, m]) => [name, record(m, name)]));
  const chains = Object.values(record(http.routers, 'routers')).map((router) =>
    list(record(router, 'router').middlewares, 'router middlewares').map((m) => text(m, 'middleware name')),
  );
  return { middlewares, chains };
}

function decisionIndex(config: TraefikConfig, chain: string[]): number {
  const index = chain.findIndex((name) => config.middlewares[name]?.forwardAuth !== undefined);
  if (index < 0) throw new Error(`a Traefik router (${chain.join(', ')}) has no forwardAuth middleware`);
  return index;
}

function removedByTraefikHeaders(config: TraefikConfig, middleware: string): string[] {
  const headers = config.middlewares[middleware]?.headers;
  if (headers === undefined) return [];
  const custom = record(record(headers, middleware).customRequestHeaders ?? {}, `${middleware} customRequestHeaders`);
  return Object.entries(custom)
    .filter(([, value]) => value === '')
    .map(([name]) => name.toLowerCase());
}

function traefikStages(config: TraefikConfig): EdgeStages {
  const removedIn = (names: string[]) => (name: string) => names.some((m) => removedByTraefikHeaders(config, m).includes(name));
  const everyChain = (part: (chain: string[], at: number) => string[]) => (name: string) =>
    config.chains.length > 0 && config.chains.every((chain) => removedIn(part(chain, decisionIndex(config, chain)))(name));
  const fromDecision = (name: string) =>
    config.chains.length > 0 &&
    config.chains.every((chain) => {
      const forwardAuth = record(config.middlewares[chain[decisionIndex(config, chain)]!]!.forwardAuth, 'forwardAuth');
      return optionalList(forwardAuth.authResponseHeaders, 'authResponseHeaders').some((h) => text(h, 'header').toLowerCase() === name);
    });
  const exactNames = Object.entries(config.middlewares).flatMap(([name, m]) => [
    ...removedByTraefikHeaders(config, name),
    ...(m.forwardAuth === undefined
      ? []
      : optionalList(record(m.forwardAuth, name).authResponseHeaders, 'authResponseHeaders').map((h) => text(h, 'header').toLowerCase())),
  ]);
  return {
    file: 'deploy/edge/traefik.yaml',
    removedBeforeDecision: everyChain((chain, at) => chain.slice(0, at)),
    removedAfterDecision: everyChain((chain, at) => chain.slice(at + 1)),
    identityFromDecisionOnly: fromDecision,
    exactNames,
  };
}

/** Names the rule drops by pattern: the property tests' generator. */
const suffix = fc.oneof(
  fc.constantFrom('', 'f', 'fo', 'for', 'forx', 'for-ip', 'p', 'pr', 'pro', 'prot', 'proto', 'protocol', 'host', 'port'),
  fc.string({ unit: fc.constantFrom(...TCHAR), maxLength: 12 }),
);
const droppedByPattern = fc.oneof(
  suffix.map((s) => `x-forwarded-${s}`),
  suffix.map((s) => `${s}-ip`),
  suffix.map((s) => `x-original-${s}`),
  suffix.map((s) => `x-rewrite-${s}`),
  suffix.map((s) => `x-override-${s}`),
  suffix.map((s) => `x-gateway-${s}`),
  suffix.map((s) => `${s}-method-override`),
  fc.constantFrom('x-method', 'x-http-method', 'x-method-override', 'x-http-method-override'),
);
/** Any header name, leaning towards the rule's edges (prefixes and suffixes it drops, names next to them). */
const anyName = fc.oneof(
  fc.string({ unit: fc.constantFrom(...TCHAR), minLength: 1, maxLength: 24 }),
  fc
    .tuple(fc.constantFrom('x-app-', 'x-forwarded', 'x-gateway', 'x-original', 'x-method', 'x-http-', 'x-', 'forwarded', 'x-host', 'ip-', ''), suffix)
    .map(([a, b]) => `${a}${b}`)
    .filter((n) => n !== ''),
  droppedByPattern,
);

/** The checks every edge configuration answers to, whatever the proxy. */
function checkRule(t: Test, edge: EdgeStages): void {
  t.test(`${edge.file}: the identity headers reach the API only as the decision set them`, async (t) => {
    for (const name of IDENTITY_HEADERS) t.ok(edge.identityFromDecisionOnly(name), name);
  });

  t.test(`${edge.file}: the consumed credentials reach the decision and stop at the edge`, async (t) => {
    for (const name of CONSUMED_CREDENTIAL_HEADERS) {
      t.notOk(edge.removedBeforeDecision(name), `${name} reaches the decision`);
      t.ok(edge.removedAfterDecision(name), `${name} is removed after the decision`);
    }
  });

  t.test(`${edge.file}: the client routing claims and overrides never reach the API`, async (t) => {
    for (const name of CLIENT_ROUTING_HEADERS) t.ok(edge.removedBeforeDecision(name) || edge.removedAfterDecision(name), name);
  });

  t.test(`${edge.file}: headers the rule forwards pass untouched`, async (t) => {
    for (const name of BENIGN) {
      t.ok(forwardableRequestHeader(name), `the rule forwards ${name}`);
      t.notOk(edge.removedBeforeDecision(name), `${name} reaches the decision`);
      t.notOk(edge.removedAfterDecision(name), `${name} reaches the API`);
    }
    holds(
      t,
      fc.property(anyName, (name) => !(edge.removedBeforeDecision(name) || edge.removedAfterDecision(name)) || !forwardableRequestHeader(name)),
      2000,
    );
  });

  t.test(`${edge.file}: every name it removes by name is one the rule drops`, async (t) => {
    t.ok(edge.exactNames.length > 0, 'the file removes names');
    for (const name of edge.exactNames) t.notOk(forwardableRequestHeader(name), `the rule drops ${name}`);
  });
}

/**
 * nginx and Traefik remove by exact name: what the rule drops they remove or set themselves (the
 * X-Forwarded- trio), or their decision refuses. Underscore spellings have tests of their own.
 */
function checkExactNameEdge(t: Test, edge: EdgeStages): void {
  const setByEveryEdge = new Set(['x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto']);
  t.test(`${edge.file}: every header the rule drops is removed by name or refused by the decision`, async (t) => {
    for (const name of CLIENT_ROUTING_HEADERS) t.notOk(droppedOnlyByPattern(name), `${name} is removed by name, not refused`);
    holds(
      t,
      fc.property(
        droppedByPattern.filter((name) => !name.includes('_')),
        (name) => setByEveryEdge.has(name) || edge.removedBeforeDecision(name) || edge.removedAfterDecision(name) || droppedOnlyByPattern(name),
      ),
      2000,
    );
  });
}

for (const envoy of [envoyConfig('deploy/edge/envoy.yaml'), envoyConfig('deploy/edge/envoy-grpc.yaml')]) {
  const shown = envoy.file.replace('deploy/edge/', '');
  checkRule(t, envoyStages(envoy));

  t.test(`${shown}: the header_mutation filter runs before ext_authz`, async (t) => {
    const mutation = envoy.filterNames.indexOf('envoy.filters.http.header_mutation');
    t.ok(mutation >= 0 && mutation < envoy.filterNames.indexOf('envoy.filters.http.ext_authz'), envoy.filterNames.join(' → '));
    t.equal(envoy.filterNames.at(-1), 'envoy.filters.http.router');
  });

  t.test(`${shown}: its patterns are the rule, except the X-Forwarded-For and -Proto Envoy sets itself`, async (t) => {
    const stages = envoyStages(envoy);
    t.notOk(stages.removedBeforeDecision('x-forwarded-for'), 'x-forwarded-for reaches the decision');
    t.notOk(stages.removedBeforeDecision('x-forwarded-proto'), 'x-forwarded-proto reaches the decision');
    for (const name of [
      'x-forwarded-host',
      'x-forwarded-fo',
      'x-forwarded-forx',
      'x-forwarded-protocol',
      'x-forwarded-',
      'forwarded',
      'x-host',
      'x-real-ip',
      'x-original-url',
    ]) {
      t.ok(stages.removedBeforeDecision(name), name);
    }
    holds(
      t,
      fc.property(droppedByPattern, (name) => {
        const kept = name === 'x-forwarded-for' || name === 'x-forwarded-proto';
        return !forwardableRequestHeader(name) && stages.removedBeforeDecision(name) === !kept;
      }),
      3000,
    );
  });

  t.test(`${shown}: each pattern is RE2 that compiles the same in JavaScript, anchored and small`, async (t) => {
    t.ok(envoy.regexSources.length > 0, 'the file has patterns');
    for (const source of envoy.regexSources) {
      // Envoy matches the whole name; the anchors make JavaScript's RegExp.test do the same.
      t.match(source, /^\^.*\$$/, `${source} is anchored`);
      // RE2 has no lookaround and no backreferences (Envoy refuses them); JavaScript would accept them.
      t.notMatch(source, /\(\?<?[=!]|\\[1-9]/, `${source} has no lookaround or backreference`);
      // RE2's "." and [^...] match any Unicode character and compile to programs several times as
      // large; Envoy refuses a regex whose RE2 program size is over 100.
      t.notMatch(source, /(^|[^\\])\.|\[\^/, `${source} uses ASCII classes only`);
    }
  });

  t.test(`${shown}: X-Forwarded-For is the client address alone, overwritten before the decision and at the router`, async (t) => {
    t.equal(envoy.hcm.use_remote_address, true, 'use_remote_address');
    t.equal(envoy.hcm.xff_num_trusted_hops, 0, 'xff_num_trusted_hops');
    const overwritesXff = (option: Record<string, unknown>) => {
      const header = record(option.header, 'header');
      return (
        header.key === 'x-forwarded-for' &&
        header.value === '%DOWNSTREAM_REMOTE_ADDRESS_WITHOUT_PORT%' &&
        option.append_action === 'OVERWRITE_IF_EXISTS_OR_ADD' &&
        option.append === undefined
      );
    };
    t.ok(
      envoy.beforeDecision.some((m) => m.append !== undefined && overwritesXff(record(m.append, 'append'))),
      'before the decision',
    );
    for (const route of envoy.routes) {
      t.ok(
        optionalList(route.request_headers_to_add, 'request_headers_to_add').some((option) => overwritesXff(record(option, 'header option'))),
        'at the router',
      );
    }
  });

  t.test(`${shown}: a header spelled with an underscore never reaches the decision or the API`, async (t) => {
    const options = record(envoy.hcm.common_http_protocol_options, 'common_http_protocol_options');
    t.ok(['DROP_HEADER', 'REJECT_REQUEST'].includes(text(options.headers_with_underscores_action, 'headers_with_underscores_action')));
  });
}

t.test('envoy-grpc.yaml: the gRPC service fails closed, is sent the whole body and never hears a client say it came', async (t) => {
  const grpc = envoyConfig('deploy/edge/envoy-grpc.yaml');
  t.equal(grpc.extAuthz.failure_mode_allow, false, 'failure_mode_allow: false');
  const body = record(grpc.extAuthz.with_request_body, 'with_request_body');
  t.equal(body.allow_partial_message, false, 'no partial bodies');
  t.equal(body.pack_as_bytes, true, 'the body byte for byte (raw_body)');
  t.ok(Number(body.max_request_bytes) >= settingsFrom({}).maxBodyBytes, "the buffer holds the gateway's largest body");
  t.equal(grpc.extAuthz.allowed_headers, undefined, 'every header is described, so the answer can name each one the rule drops');
  t.ok(grpc.exactBefore.includes('x-envoy-auth-partial-body'), "a client's x-envoy-auth-partial-body is removed before the decision");
  const service = record(grpc.extAuthz.grpc_service, 'grpc_service');
  t.match(text(service.timeout, 'timeout'), /^\d+(\.\d+)?s$/, 'a deadline for each Check');
  const cluster = list(record(record(readYaml('deploy/edge/envoy-grpc.yaml'), 'envoy-grpc.yaml').static_resources, 'static_resources').clusters, 'clusters')
    .map((c) => record(c, 'cluster'))
    .find((c) => c.name === record(service.envoy_grpc, 'envoy_grpc').cluster_name);
  t.ok(cluster, 'the cluster it names');
  t.match(cluster, {
    typed_extension_protocol_options: { 'envoy.extensions.upstreams.http.v3.HttpProtocolOptions': { explicit_http_config: { http2_protocol_options: {} } } },
    health_checks: [{ grpc_health_check: {} }],
  });
});

const traefik = traefikConfig();
checkRule(t, traefikStages(traefik));
checkExactNameEdge(t, traefikStages(traefik));

t.test("traefik.yaml: forwardAuth describes the request from Traefik's own view", async (t) => {
  for (const chain of traefik.chains) {
    const forwardAuth = record(traefik.middlewares[chain[decisionIndex(traefik, chain)]!]!.forwardAuth, 'forwardAuth');
    t.equal(forwardAuth.trustForwardHeader, false, 'trustForwardHeader');
  }
});

// nginx: the decision subrequest gets the client's headers (nginx drops underscore spellings itself);
// the server block's proxy_set_header lines, which both API locations inherit, blank a header ("")
// or set it from a variable of the decision's answer (auth_request_set ... $upstream_http_<name>).
interface NginxConfig {
  /** proxy_set_header lines of the server block: lower-case name → value. */
  serverHeaders: Map<string, string>;
  /** auth_request_set: variable → the decision's response header it reads. */
  fromAnswer: Map<string, string>;
  text: string;
}

function nginxConfig(): NginxConfig {
  const source = readFileSync(join(REPO_ROOT, 'deploy/edge/nginx.conf'), 'utf8').replace(/#.*$/gm, '');
  const server = source.slice(source.indexOf('server {'), source.indexOf('location '));
  const serverHeaders = new Map([...server.matchAll(/^\s*proxy_set_header\s+(\S+)\s+(".*?"|\S+);/gm)].map((m) => [m[1]!.toLowerCase(), m[2]!]));
  const fromAnswer = new Map([...server.matchAll(/^\s*auth_request_set\s+(\$\w+)\s+\$upstream_http_(\w+);/gm)].map((m) => [m[1]!, m[2]!.replaceAll('_', '-')]));
  return { serverHeaders, fromAnswer, text: source };
}

function nginxStages(config: NginxConfig): EdgeStages {
  const blanked = (name: string) => config.serverHeaders.get(name) === '""';
  return {
    file: 'deploy/edge/nginx.conf',
    removedBeforeDecision: () => false,
    removedAfterDecision: blanked,
    identityFromDecisionOnly: (name) => config.fromAnswer.get(config.serverHeaders.get(name) ?? '') === name,
    exactNames: [...config.serverHeaders].filter(([, value]) => value === '""' || config.fromAnswer.has(value)).map(([name]) => name),
  };
}

const nginx = nginxConfig();
checkRule(t, nginxStages(nginx));
checkExactNameEdge(t, nginxStages(nginx));

t.test("nginx.conf: both API locations inherit the server block's header lines, and it drops underscore spellings", async (t) => {
  const locations = nginx.text.split(/\n\s*location /).slice(1);
  const api = locations.filter((l) => l.startsWith('/ {') || l.startsWith('= /_gateway_bodyless'));
  t.equal(api.length, 2, 'two locations forward to the API');
  for (const location of api) t.notMatch(location, /proxy_set_header/, 'no proxy_set_header of its own (it would drop the inherited ones)');
  t.match(nginx.text, /underscores_in_headers off;/);
  t.match(nginx.text, /ignore_invalid_headers on;/);
  t.equal(nginx.serverHeaders.get('x-forwarded-for'), '$remote_addr', 'X-Forwarded-For is the client address alone');
});

// Caddy: request_header deletions (a name, or a pattern with * at one end) run in the order written;
// those before forward_auth happen before the decision; copy_headers sets what the decision answered.
interface CaddyConfig {
  before: string[];
  after: string[];
  copied: string[];
}

function caddyConfig(): CaddyConfig {
  const lines = readFileSync(join(REPO_ROOT, 'deploy/edge/Caddyfile'), 'utf8')
    .split('\n')
    .map((l) => l.replace(/#.*$/, '').trim());
  const decision = lines.findIndex((l) => l.startsWith('forward_auth '));
  // Unconditional deletions only: a matcher (@name) makes one conditional.
  const deletions = (part: string[]) => part.flatMap((l) => /^request_header -(\S+)$/.exec(l)?.[1]?.toLowerCase() ?? []);
  const copied =
    lines
      .find((l) => l.startsWith('copy_headers '))
      ?.split(/\s+/)
      .slice(1)
      .map((n) => n.toLowerCase()) ?? [];
  return { before: deletions(lines.slice(0, decision)), after: deletions(lines.slice(decision)), copied };
}

function caddyMatches(patterns: string[], name: string): boolean {
  return patterns.some((p) => (p.startsWith('*') ? name.endsWith(p.slice(1)) : p.endsWith('*') ? name.startsWith(p.slice(0, -1)) : name === p));
}

function caddyStages(config: CaddyConfig): EdgeStages {
  return {
    file: 'deploy/edge/Caddyfile',
    removedBeforeDecision: (name) => caddyMatches(config.before, name),
    removedAfterDecision: (name) => caddyMatches(config.after, name),
    identityFromDecisionOnly: (name) => config.copied.includes(name) && caddyMatches(config.before, name),
    exactNames: [...config.before, ...config.after, ...config.copied].filter((n) => !n.includes('*')),
  };
}

const caddy = caddyConfig();
checkRule(t, caddyStages(caddy));

t.test('Caddyfile: its patterns drop what the rule drops by pattern, X-Forwarded-* included (Caddy sets its own)', async (t) => {
  const stages = caddyStages(caddy);
  holds(
    t,
    fc.property(droppedByPattern, (name) => !forwardableRequestHeader(name) && stages.removedBeforeDecision(name)),
    3000,
  );
  for (const pattern of [...caddy.before, ...caddy.after].filter((p) => p.includes('*'))) {
    t.ok(pattern.indexOf('*') === 0 || pattern.indexOf('*') === pattern.length - 1, `${pattern}: a wildcard at one end only, as Caddy matches`);
  }
});
