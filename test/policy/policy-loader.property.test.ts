// Property tests of policy parsing: any YAML document either loads or is refused with a
// PolicyError whose message names the file; no other exception escapes (circular aliases, odd tags
// and wrongly typed values included). Any valid file loads as written, and any one field made
// wrong is refused, naming the file.
import fc from 'fast-check';
import t, { type Test } from 'tap';
import { stringify } from 'yaml';
import {
  assemblePolicy,
  parsePolicyFile,
  PolicyError,
  validateRoutes,
  type Policy,
  type PolicyFile,
  type PolicyRoute,
} from '../../gateway/policy/policy-loader.js';
import { METHODS } from '../../gateway/policy/policy-schema.js';
import { holds } from '../helpers/property.js';

const FILE = '/etc/gateway/policies/fuzz.yaml';
const SHIPPED_NAMES = ['sales', 'products', 'stats', 'view_balance', 'initiate_payment'];

const scalar = fc.oneof(
  fc.constantFrom('GET', 'get', 'POST', 'TRACE', 'public', 'banking', 'bearer', 'signature', 'api.example.com', 'bad host:80', '', null, true, 0, -1, 1.5),
  fc.constantFrom(...SHIPPED_NAMES, 'fly', 'Read sales', 'moves_money', 'none'),
  fc.constantFrom('/v1/sales', '/v1/sales/{id}', '/v1/{a}/{a}', '/v1/../x', 'v1/no-slash', '/', '/v1//x', '/v1/{id', '/v1/%2f'),
  fc.string({ maxLength: 12 }),
  fc.integer(),
);
const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  any: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('list'), tie('map')),
  list: fc.array(tie('any'), { maxLength: 3 }),
  map: fc.dictionary(
    fc.constantFrom(
      'method',
      'path',
      'host',
      'upstream',
      'auth',
      'scopes',
      'permissions',
      'id',
      'routes',
      'description',
      'moves_money',
      'sales',
      'extra',
      '__proto__',
      'toString',
    ),
    tie('any'),
    { maxKeys: 4 },
  ),
})).any;
/** Routes that are mostly right, with one field at a time made wrong. */
const route = fc.record(
  {
    method: fc.oneof(fc.constantFrom('GET', 'POST', 'delete'), scalar),
    path: fc.oneof(fc.constantFrom('/v1/sales', '/v1/sales/{id}', '/v1/x/{id}/y'), scalar),
    scopes: fc.oneof(fc.subarray(['sales', 'products', 'stats'], { minLength: 1 }), value),
    permissions: value,
    host: scalar,
    id: value,
    upstream: scalar,
    auth: scalar,
  },
  { requiredKeys: ['method', 'path'] },
);
const documentValue = fc.oneof(
  fc.record(
    {
      upstream: fc.constantFrom('public', 'banking'),
      auth: fc.constantFrom('bearer', 'signature'),
      scopes: fc.oneof(fc.constant({ sales: 'Read sales', products: { description: 'Read products' }, stats: 'Read statistics' }), value),
      permissions: fc.oneof(fc.constant({ view_balance: 'View balance', initiate_payment: { description: 'Create transfers', moves_money: true } }), value),
      routes: fc.array(route, { maxLength: 4 }),
    },
    { requiredKeys: ['routes'] },
  ),
  value,
);
/** Hand-written YAML the generator above cannot reach: aliases (circular too), tags, several documents. */
const yamlFragment = fc.constantFrom(
  'routes: [ { method: &m [ *m ], path: / } ]',
  'upstream: &u [ *u ]\nauth: bearer\nroutes: [ { method: GET, path: /x, scopes: [sales] } ]',
  'routes: &r [ { method: GET, path: /x, upstream: public, auth: bearer, scopes: [sales], id: *r } ]',
  'routes: [ { method: GET, path: /x, upstream: public, auth: bearer, scopes: [sales], id: { toString: 1 } } ]',
  'routes: [ { method: GET, path: /x, upstream: public, auth: bearer, scopes: [sales], id: !!binary aGVsbG8= } ]',
  'routes: [ { method: GET, path: /x, upstream: public, auth: bearer, scopes: !!set { sales } } ]',
  'a: &a [*a, *a]\nb: &b [*a, *a]\nc: &c [*b, *b]\nroutes: [*c]',
  '--- {routes: []}\n--- {routes: []}',
  'routes: [ { <<: { method: GET, path: /x }, upstream: public, auth: bearer, scopes: [sales] } ]',
  'routes: [ { method: GET, method: POST, path: /x } ]',
  '%YAML 1.2\n---\nroutes: 1',
  'routes: [ { method: GET, path: /x, upstream: public, auth: bearer, scopes: [sales], id: 123456789012345678901234567890 } ]',
  'scopes: &s { sales: *s }\nroutes: [ { method: GET, path: /x, upstream: public, auth: bearer, scopes: [sales] } ]',
  'permissions: { p: { description: &d [*d] } }\nroutes: [ { method: GET, path: /x, upstream: banking, auth: signature, permissions: [p] } ]',
  'scopes: { sales: Read sales, sales: Sell }\nroutes: [ { method: GET, path: /x, upstream: public, auth: bearer, scopes: [sales] } ]',
  'scopes: { sales: .inf }\nroutes: [ { method: GET, path: /x, upstream: public, auth: bearer, scopes: [sales], id: .nan } ]',
);
const documentText = fc.oneof(
  documentValue.map((doc) => stringify(doc)),
  documentValue.map((doc) => JSON.stringify(doc) ?? ''),
  yamlFragment,
  fc.tuple(yamlFragment, fc.string({ maxLength: 10 })).map(([a, b]) => `${a}${b}`),
  fc.string({ maxLength: 80 }),
);

/** The file, or undefined when it is refused with a PolicyError naming it; any other failure escapes. */
function loaded(text: string): PolicyFile | undefined {
  try {
    return parsePolicyFile(FILE, text);
  } catch (error) {
    if (error instanceof PolicyError && error.message.startsWith(`${FILE}`)) return undefined;
    throw error;
  }
}

/** yaml warns about unknown tags on the process; those are not failures here. */
function quietYamlWarnings(t: Test): void {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- saved only to be put back on process below
  const warn = process.emitWarning;
  process.emitWarning = () => {};
  t.teardown(() => {
    process.emitWarning = warn;
  });
}

t.test('any document loads or is refused with a PolicyError naming the file', async (t) => {
  quietYamlWarnings(t);
  let loads = 0;
  holds(
    t,
    fc.property(documentText, documentText, (a, b) => {
      const files = [loaded(a), loaded(b)].filter((f) => f !== undefined);
      const routes: PolicyRoute[] = files.flatMap((f) => f.routes);
      if (routes.length > 0) loads++;
      for (const r of routes) {
        if (typeof r.id !== 'string' || r.id === '' || r.id.includes('[object ')) throw new Error(`route id ${JSON.stringify(r.id)} from ${JSON.stringify(a)}`);
      }
      try {
        validateRoutes(routes);
      } catch (error) {
        if (!(error instanceof PolicyError) || !error.message.startsWith(FILE)) throw error;
      }
      try {
        assemblePolicy(files);
      } catch (error) {
        if (!(error instanceof PolicyError) || !error.message.includes(FILE)) throw error;
      }
    }),
    400,
  );
  t.ok(loads > 0, `some documents loaded (${loads})`);
});

// Valid files, built to the contract: declared names, routes naming only those, paths that cannot
// overlap (each route's first segment is its own), and every optional field in a valid form.
const vocabularyName = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,15}$/);
const description = fc.oneof(
  fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ,.'()-]{0,40}$/),
  fc
    .string({ unit: 'grapheme', minLength: 1, maxLength: 40 })
    .filter(
      (s) =>
        /\S/.test(s) && !/[\u0000-\u001f\u007f]/.test(s) && [...s].length <= 200 && !/[\ud800-\udfff]/.test(s.replace(/[\ud800-\udbff][\udc00-\udfff]/g, '')),
    ),
);
const upstreamName = fc.stringMatching(/^[a-z][a-z0-9-]{0,31}$/);
const anyCase = (word: string) => fc.constantFrom(word, word.toLowerCase(), word[0] + word.slice(1).toLowerCase());
const validRateLimit = fc.oneof(
  fc.constant('none'),
  fc.record({
    requests: fc.integer({ min: 1, max: 1000 }),
    per: fc.oneof(fc.integer({ min: 1, max: 86_400 }), fc.constantFrom('1s', '30s', '1m', '2h', '1d')),
  }),
);

interface ValidFile {
  doc: Record<string, unknown>;
  upstreams: ReadonlySet<string>;
}

const validFile: fc.Arbitrary<ValidFile> = fc
  .record({
    scopes: fc.uniqueArray(vocabularyName, { minLength: 1, maxLength: 4 }),
    permissions: fc.uniqueArray(vocabularyName, { minLength: 1, maxLength: 4 }),
    upstreams: fc.uniqueArray(upstreamName, { minLength: 1, maxLength: 3 }),
    routeCount: fc.integer({ min: 1, max: 5 }),
  })
  .chain(({ scopes, permissions, upstreams, routeCount }) =>
    fc
      .record({
        scopeDeclarations: fc.tuple(...scopes.map(() => fc.tuple(description, fc.boolean()))),
        permissionDeclarations: fc.tuple(...permissions.map(() => fc.tuple(description, fc.constantFrom('text', 'object', 'flagged')))),
        fileUpstream: fc.option(fc.constantFrom(...upstreams), { nil: undefined }),
        fileAuth: fc.option(fc.constantFrom('bearer', 'signature'), { nil: undefined }),
        fileRateLimit: fc.option(validRateLimit, { nil: undefined }),
        routes: fc.tuple(
          ...Array.from({ length: routeCount }, () =>
            fc.record({
              method: fc.constantFrom(...METHODS).chain(anyCase),
              // Literal segments and parameters, each parameter named once.
              rest: fc.array(fc.constantFrom('a', 'b-c', 'x.y', null), { maxLength: 2 }).map((parts) => parts.map((p, j) => p ?? `{p${j}}`)),
              auth: fc.constantFrom('bearer', 'signature'),
              scopes: fc.subarray(scopes, { minLength: 1 }),
              permissions: fc.subarray(permissions, { minLength: 1 }),
              upstream: fc.option(fc.constantFrom(...upstreams), { nil: undefined }),
              host: fc.option(fc.domain(), { nil: undefined }),
              id: fc.boolean(),
              rateLimit: fc.option(validRateLimit, { nil: undefined }),
              digestUpstream: fc.boolean(),
            }),
          ),
        ),
      })
      .map(({ scopeDeclarations, permissionDeclarations, fileUpstream, fileAuth, fileRateLimit, routes }): ValidFile => {
        const doc: Record<string, unknown> = {};
        if (fileUpstream !== undefined) doc.upstream = fileUpstream;
        if (fileAuth !== undefined) doc.auth = fileAuth;
        if (fileRateLimit !== undefined) doc.rate_limit = fileRateLimit;
        doc.scopes = Object.fromEntries(
          scopes.map((name, i) => [name, scopeDeclarations[i]![1] ? { description: scopeDeclarations[i]![0] } : scopeDeclarations[i]![0]]),
        );
        doc.permissions = Object.fromEntries(
          permissions.map((name, i) => {
            const [text, form] = permissionDeclarations[i]!;
            return [name, form === 'text' ? text : form === 'object' ? { description: text } : { description: text, moves_money: true }];
          }),
        );
        doc.routes = routes.map((r, i) => {
          const route: Record<string, unknown> = { method: r.method, path: ['', `r${i}`, ...r.rest].join('/') };
          // The route gives what the file does not (and sometimes what it does, overriding it).
          route.upstream = r.upstream ?? (fileUpstream === undefined ? upstreams[0] : undefined);
          if (route.upstream === undefined) delete route.upstream;
          if (fileAuth !== r.auth) route.auth = r.auth;
          if (r.auth === 'bearer') route.scopes = r.scopes;
          else route.permissions = r.permissions;
          if (r.host !== undefined) route.host = r.host;
          if (r.id) route.id = `route-${i}`;
          if (r.rateLimit !== undefined) route.rate_limit = r.rateLimit;
          if (r.auth === 'signature' && r.digestUpstream) route.digest = 'upstream';
          return route;
        });
        return { doc, upstreams: new Set(upstreams) };
      }),
  );

/** The generated file, written as YAML and loaded. */
function load(file: ValidFile): Policy {
  return assemblePolicy([parsePolicyFile(FILE, stringify(file.doc))]);
}

t.test('any valid file loads, as written', async (t) => {
  holds(
    t,
    fc.property(validFile, (file) => {
      const { routes, vocabulary } = load(file);
      const written = file.doc.routes as Array<Record<string, unknown>>;
      if (routes.length !== written.length) throw new Error(`${routes.length} routes of ${written.length}`);
      routes.forEach((route, i) => {
        const w = written[i]!;
        if (route.method !== String(w.method).toUpperCase() || route.template !== w.path) throw new Error(`route ${i}: ${route.method} ${route.template}`);
        if (route.scopes.join() !== ((w.scopes as string[] | undefined) ?? []).join()) throw new Error(`route ${i} scopes ${route.scopes.join()}`);
        if (route.permissions.join() !== ((w.permissions as string[] | undefined) ?? []).join()) throw new Error(`route ${i} permissions`);
        if (!file.upstreams.has(route.upstream)) throw new Error(`route ${i} upstream ${route.upstream}`);
      });
      const declared = (key: string) => Object.keys(file.doc[key] as object).join();
      if ([...vocabulary.scopes.keys()].join() !== declared('scopes') || [...vocabulary.permissions.keys()].join() !== declared('permissions'))
        throw new Error('the vocabulary is not what the file declares');
      for (const [name, entry] of Object.entries(file.doc.permissions as Record<string, unknown>)) {
        const movesMoney = typeof entry === 'object' && (entry as { moves_money?: boolean }).moves_money === true;
        if (vocabulary.permissions.get(name)?.movesMoney !== movesMoney) throw new Error(`${name}: moves_money`);
      }
    }),
    200,
  );
});

/** One field made wrong: where it is, and the wrong values it may take. */
type Corruption = (doc: Record<string, unknown>, route: Record<string, unknown>) => void;
const UNDECLARED = 'a-name-no-generated-file-declares';
const corruptions: Record<string, Corruption[]> = {
  'file routes': [(d) => (d.routes = []), (d) => (d.routes = 'all of them'), (d) => (d.routes = null)],
  'file field': [
    (d) => (d.upstream = 'Not_An_Upstream'),
    (d) => (d.auth = 'jwt'),
    (d) => (d.digest = 'client'),
    (d) => (d.host = 'api.example.com:443'),
    (d) => (d.rate_limit = { requests: 0, per: '1m' }),
    (d) => (d.rate_limit = 'off'),
    (d) => (d.timeout = 5),
  ],
  declarations: [
    (d) => (d.scopes = Object.keys(d.scopes as object)),
    (d) => (d.scopes = { ...(d.scopes as object), 'two words': 'Spaces are not allowed' }),
    (d) => (d.permissions = { ...(d.permissions as object), payout: { description: 'Pay out', moves_money: 'yes' } }),
    (d) => (d.permissions = { ...(d.permissions as object), payout: '' }),
    (d) => (d.permissions = { ...(d.permissions as object), payout: { text: 'Pay out' } }),
  ],
  'route method': [(_, r) => (r.method = 'FETCH'), (_, r) => (r.method = 5), (_, r) => delete r.method],
  'route path': [(_, r) => (r.path = 'v1/x'), (_, r) => (r.path = `${String(r.path)}/{q`), (_, r) => (r.path = '/a/../b'), (_, r) => (r.path = '/{q}/{q}')],
  'route names': [
    (_, r) => (r.scopes === undefined ? (r.permissions = [UNDECLARED]) : (r.scopes = [UNDECLARED])),
    (_, r) => (r.scopes === undefined ? (r.permissions = []) : (r.scopes = [])),
    (_, r) => (r.scopes === undefined ? (r.scopes = ['x']) : (r.permissions = ['x'])),
    (_, r) => (r.scopes === undefined ? (r.permissions = 'x') : (r.scopes = 'x')),
    (_, r) => (r.auth = r.scopes === undefined ? 'bearer' : 'signature'),
  ],
  'route field': [
    (_, r) => (r.upstream = 'Upper'),
    (_, r) => (r.host = 'https://api.example.com'),
    (_, r) => (r.id = ''),
    (_, r) => (r.id = ['a']),
    (_, r) => (r.rate_limit = { requests: 100_000, per: 1 }),
    (_, r) => (r.rate_limit = { requests: 10, per: '1 minute' }),
    (_, r) => (r.digest = r.scopes === undefined ? 'client' : 'upstream'),
    (_, r) => (r.scope = ['sales']),
  ],
};

t.test('any one field made wrong is refused, with a message naming the file', async (t) => {
  const kinds = Object.keys(corruptions);
  holds(
    t,
    fc.property(
      validFile,
      fc.constantFrom(...kinds).chain((kind) => fc.tuple(fc.constant(kind), fc.nat({ max: corruptions[kind]!.length - 1 }))),
      fc.nat(),
      (file, [kind, which], routeIndex) => {
        const doc = structuredClone(file.doc);
        const routes = doc.routes as Array<Record<string, unknown>>;
        corruptions[kind]![which]!(doc, routes[routeIndex % routes.length]!);
        const text = stringify(doc);
        try {
          assemblePolicy([parsePolicyFile(FILE, text)]);
        } catch (error) {
          if (error instanceof PolicyError && error.message.includes(FILE)) return;
          throw error;
        }
        throw new Error(`${kind} #${which} loaded:\n${text}`);
      },
    ),
    300,
  );
});
