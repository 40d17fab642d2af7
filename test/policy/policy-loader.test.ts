// Policy files are validated at load: any problem stops with a message naming the file and route.
import t, { type Test } from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPolicyDirectory, PolicyError } from '../../gateway/policy/policy-loader.js';
import { REPO_ROOT } from '../helpers/gateway.js';

function policyDir(t: Test, files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'gw-policy-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

function refused(t: Test, files: Record<string, string>, ...fragments: string[]): void {
  const dir = policyDir(t, files);
  let caught: unknown;
  try {
    loadPolicyDirectory(dir);
  } catch (error) {
    caught = error;
  }
  t.type(caught, PolicyError);
  const message = (caught as Error | undefined)?.message ?? '';
  for (const fragment of fragments) t.match(message, fragment.replace('$DIR', dir), `message names ${fragment}`);
}

const PUBLIC_HEAD = 'upstream: public\nauth: bearer\nroutes:\n';

t.test('the shipped policies/public.yaml and policies/banking.yaml load', async (t) => {
  const routes = loadPolicyDirectory(join(REPO_ROOT, 'policies'));
  t.equal(routes.filter((r) => r.upstream === 'public' && r.auth === 'bearer').length, 12);
  t.equal(routes.filter((r) => r.upstream === 'banking' && r.auth === 'signature').length, 7);
  const refund = routes.find((r) => r.id === 'public:POST /v1/sales/{id}/refund');
  t.same(refund?.scopes, ['sales_refund']);
  const transfers = routes.find((r) => r.id === 'banking:POST /v1/transfers');
  t.same(transfers?.permissions, ['initiate_payment']);
});

t.test('a valid file: defaults, per-route overrides, ids', async (t) => {
  const dir = policyDir(t, {
    'a.yaml': `${PUBLIC_HEAD}  - { method: get, path: /v1/sales, scopes: [sales] }\n  - { id: refunds, method: POST, path: "/v1/sales/{id}/refund", scopes: [sales_refund], host: API.example.com }\n`,
  });
  const [list, refund] = loadPolicyDirectory(dir);
  t.equal(list?.id, 'a:GET /v1/sales');
  t.equal(list?.method, 'GET');
  t.equal(list?.host, null);
  t.equal(refund?.id, 'refunds');
  t.equal(
    loadPolicyDirectory(policyDir(t, { 'p.yaml': `${PUBLIC_HEAD}  - { method: GET, path: /v1/sales, scopes: [sales], host: API.example.com }\n` }))[0]?.id,
    'p:GET api.example.com/v1/sales',
    'the host is part of the default id',
  );
  t.equal(refund?.host, 'api.example.com');
});

t.test('bad YAML', async (t) => {
  refused(t, { 'public.yaml': `${PUBLIC_HEAD}  - { method: GET, path: /v1/sales, scopes: [sales }\n` }, '$DIR/public.yaml', 'not valid YAML');
  refused(t, { 'public.yaml': `${PUBLIC_HEAD}  - { method: GET, path: /v1/a, path: /v1/b, scopes: [sales] }\n` }, '$DIR/public.yaml');
});

t.test('unknown scope or permission', async (t) => {
  refused(
    t,
    { 'public.yaml': `${PUBLIC_HEAD}  - { method: GET, path: /v1/sales, scopes: [sale] }\n` },
    '$DIR/public.yaml',
    'route GET /v1/sales',
    'unknown scope "sale"',
  );
  refused(
    t,
    { 'banking.yaml': 'upstream: banking\nauth: signature\nroutes:\n  - { method: GET, path: /v1/balance, permissions: [view_balances] }\n' },
    '$DIR/banking.yaml',
    'route GET /v1/balance',
    'unknown permission "view_balances"',
  );
  refused(
    t,
    { 'public.yaml': `${PUBLIC_HEAD}  - { method: GET, path: /v1/sales, scopes: [sales], permissions: [view_balance] }\n` },
    'route GET /v1/sales',
    'a bearer route needs scopes',
  );
  refused(t, { 'public.yaml': `${PUBLIC_HEAD}  - { method: GET, path: /v1/sales }\n` }, 'route GET /v1/sales', 'a bearer route needs scopes');
});

t.test('unknown field', async (t) => {
  refused(t, { 'public.yaml': `${PUBLIC_HEAD}  - { method: GET, path: /v1/sales, scope: [sales] }\n` }, '$DIR/public.yaml', 'route 1', 'unknown field "scope"');
  refused(
    t,
    { 'public.yaml': `upstream: public\nauth: bearer\ntimeout: 5\nroutes:\n  - { method: GET, path: /v1/sales, scopes: [sales] }\n` },
    '$DIR/public.yaml',
    'unknown field "timeout"',
  );
});

t.test('two routes that could match the same request', async (t) => {
  refused(
    t,
    {
      'public.yaml': `${PUBLIC_HEAD}  - { method: GET, path: "/v1/sales/{id}", scopes: [sales] }\n  - { method: GET, path: /v1/sales/export, scopes: [sales] }\n`,
    },
    '$DIR/public.yaml, route GET /v1/sales/export',
    'could match the same requests as $DIR/public.yaml, route GET /v1/sales/{id}',
  );
  refused(
    t,
    {
      'a.yaml': `${PUBLIC_HEAD}  - { method: DELETE, path: "/v1/webhooks/{id}", scopes: [webhooks] }\n`,
      'b.yaml': `${PUBLIC_HEAD}  - { method: DELETE, path: "/v1/{kind}/{id}", scopes: [webhooks] }\n`,
    },
    '$DIR/b.yaml, route DELETE /v1/{kind}/{id}',
    '$DIR/a.yaml, route DELETE /v1/webhooks/{id}',
  );
  refused(
    t,
    {
      'public.yaml': `${PUBLIC_HEAD}  - { method: GET, path: /v1/sales, scopes: [sales] }\n  - { method: GET, path: /v1/sales, scopes: [stats], host: api.example.com }\n`,
    },
    'could match the same requests',
  );
  const dir = policyDir(t, {
    'public.yaml': `${PUBLIC_HEAD}  - { method: GET, path: "/v1/sales/{id}", scopes: [sales] }\n  - { method: POST, path: /v1/sales/export, scopes: [sales] }\n  - { method: GET, path: /v1/sales, scopes: [sales], host: a.example.com }\n  - { method: GET, path: /v1/sales, scopes: [stats], host: b.example.com }\n`,
  });
  t.equal(loadPolicyDirectory(dir).length, 4, 'different methods or different hosts do not overlap');
});

t.test('other mistakes', async (t) => {
  refused(
    t,
    { 'public.yaml': `${PUBLIC_HEAD}  - { method: FETCH, path: /v1/sales, scopes: [sales] }\n` },
    '$DIR/public.yaml, route 1',
    'method must be one of',
  );
  refused(
    t,
    { 'public.yaml': `${PUBLIC_HEAD}  - { method: GET, path: "/v1/sales/{id", scopes: [sales] }\n` },
    'route GET /v1/sales/{id',
    'neither a literal nor a {parameter}',
  );
  refused(t, { 'public.yaml': `${PUBLIC_HEAD}  - { method: GET, path: /v1/../admin, scopes: [sales] }\n` }, 'route GET /v1/../admin');
  refused(t, { 'public.yaml': `${PUBLIC_HEAD}  - { method: GET, path: "/v1/{a}/{a}", scopes: [sales] }\n` }, 'appears twice');
  refused(
    t,
    { 'public.yaml': `${PUBLIC_HEAD}  - { method: GET, path: /v1/sales, scopes: [sales], upstream: private }\n` },
    'route GET /v1/sales',
    'upstream must be one of',
  );
  refused(t, { 'public.yaml': 'upstream: public\nauth: bearer\nroutes: []\n' }, '$DIR/public.yaml', 'non-empty list');
  refused(
    t,
    {
      'a.yaml': `${PUBLIC_HEAD}  - { id: dup, method: GET, path: /v1/sales, scopes: [sales] }\n`,
      'b.yaml': `${PUBLIC_HEAD}  - { id: dup, method: GET, path: /v1/stats, scopes: [stats] }\n`,
    },
    '$DIR/b.yaml, route GET /v1/stats',
    'id "dup" is also used in $DIR/a.yaml',
  );
  refused(t, {}, '$DIR', 'no policy files');
  refused(t, { 'notes.txt': 'nothing' }, 'no policy files');
});

t.test('digest: upstream applies to signed routes only, per route or for a whole file', async (t) => {
  const banking = 'upstream: banking\nauth: signature\n';
  const dir = policyDir(t, {
    'a.yaml': `${banking}digest: upstream\nroutes:\n  - { method: POST, path: /v1/a, permissions: [initiate_payment] }\n`,
    'b.yaml': `${banking}routes:\n  - { method: POST, path: /v1/b, permissions: [initiate_payment] }\n  - { method: PUT, path: /v1/c, permissions: [initiate_payment], digest: upstream }\n`,
  });
  const digests = Object.fromEntries(loadPolicyDirectory(dir).map((route) => [route.template, route.digest]));
  t.same(digests, { '/v1/a': 'upstream', '/v1/b': 'gateway', '/v1/c': 'upstream' });
  refused(
    t,
    { 'p.yaml': `${PUBLIC_HEAD}  - { method: POST, path: /v1/x, scopes: [sales], digest: upstream }\n` },
    'p.yaml, route POST /v1/x: digest: upstream applies to signature routes only',
  );
  refused(
    t,
    { 'q.yaml': `${banking}routes:\n  - { method: POST, path: /v1/x, permissions: [initiate_payment], digest: client }\n` },
    'digest must be one of gateway, upstream, got "client"',
  );
});
