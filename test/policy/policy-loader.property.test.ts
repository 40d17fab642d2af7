// Property tests of policy parsing: any YAML document either loads or is refused with a
// PolicyError whose message starts with the file name; no other exception escapes (circular
// aliases, odd tags and wrongly typed values included).
import fc from 'fast-check';
import t from 'tap';
import { stringify } from 'yaml';
import { parsePolicyFile, PolicyError, validateRoutes, type PolicyRoute } from '../../gateway/policy/policy-loader.js';
import { PERMISSION_NAMES, SCOPES } from '../../gateway/policy/vocabulary.js';
import { holds } from '../helpers/property.js';

const FILE = '/etc/gateway/policies/fuzz.yaml';

const scalar = fc.oneof(
  fc.constantFrom('GET', 'get', 'POST', 'TRACE', 'public', 'banking', 'bearer', 'signature', 'api.example.com', 'bad host:80', '', null, true, 0, -1, 1.5),
  fc.constantFrom(...SCOPES, ...PERMISSION_NAMES, 'fly'),
  fc.constantFrom('/v1/sales', '/v1/sales/{id}', '/v1/{a}/{a}', '/v1/../x', 'v1/no-slash', '/', '/v1//x', '/v1/{id', '/v1/%2f'),
  fc.string({ maxLength: 12 }),
  fc.integer(),
);
const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  any: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('list'), tie('map')),
  list: fc.array(tie('any'), { maxLength: 3 }),
  map: fc.dictionary(
    fc.constantFrom('method', 'path', 'host', 'upstream', 'auth', 'scopes', 'permissions', 'id', 'routes', 'extra', '__proto__', 'toString'),
    tie('any'),
    { maxKeys: 4 },
  ),
})).any;
/** Routes that are mostly right, with one field at a time made wrong. */
const route = fc.record(
  {
    method: fc.oneof(fc.constantFrom('GET', 'POST', 'delete'), scalar),
    path: fc.oneof(fc.constantFrom('/v1/sales', '/v1/sales/{id}', '/v1/x/{id}/y'), scalar),
    scopes: fc.oneof(fc.subarray([...SCOPES], { minLength: 1 }), value),
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
    { upstream: fc.constantFrom('public', 'banking'), auth: fc.constantFrom('bearer', 'signature'), routes: fc.array(route, { maxLength: 4 }) },
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
);
const documentText = fc.oneof(
  documentValue.map((doc) => stringify(doc)),
  documentValue.map((doc) => JSON.stringify(doc) ?? ''),
  yamlFragment,
  fc.tuple(yamlFragment, fc.string({ maxLength: 10 })).map(([a, b]) => `${a}${b}`),
  fc.string({ maxLength: 80 }),
);

function loaded(text: string): PolicyRoute[] | undefined {
  try {
    return parsePolicyFile(FILE, text);
  } catch (error) {
    if (error instanceof PolicyError && error.message.startsWith(`${FILE}`)) return undefined;
    throw error;
  }
}

t.test('any document loads or is refused with a PolicyError naming the file', async (t) => {
  // yaml warns about unknown tags on the process; those are not failures here.
  // eslint-disable-next-line @typescript-eslint/unbound-method -- saved only to be put back on process below
  const warn = process.emitWarning;
  process.emitWarning = () => {};
  t.teardown(() => {
    process.emitWarning = warn;
  });
  let loads = 0;
  holds(
    t,
    fc.property(documentText, documentText, (a, b) => {
      const routes = [...(loaded(a) ?? []), ...(loaded(b) ?? [])];
      if (routes.length > 0) loads++;
      for (const r of routes) {
        if (typeof r.id !== 'string' || r.id === '' || r.id.includes('[object ')) throw new Error(`route id ${JSON.stringify(r.id)} from ${JSON.stringify(a)}`);
      }
      try {
        validateRoutes(routes);
      } catch (error) {
        if (!(error instanceof PolicyError) || !error.message.startsWith(FILE)) throw error;
      }
    }),
    400,
  );
  t.ok(loads > 0, `some documents loaded (${loads})`);
});
