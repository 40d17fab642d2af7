// Policy files are validated at load: any problem stops with a message naming the file and route.
import t, { type Test } from 'tap';
import { join } from 'node:path';
import { loadPolicies, PolicyError, type Policy } from '../../gateway/policy/policy-loader.js';
import { REPO_ROOT } from '../helpers/gateway.js';
import { PERMISSIONS_DECLARED, policyDir, SCOPES_DECLARED } from './policy-files.js';

function refused(t: Test, files: Record<string, string>, ...fragments: string[]): string {
  const dir = policyDir(t, files);
  let caught: unknown;
  try {
    loadPolicies(dir);
  } catch (error) {
    caught = error;
  }
  t.type(caught, PolicyError);
  const message = (caught as Error | undefined)?.message ?? '';
  for (const fragment of fragments) t.match(message, fragment.replaceAll('$DIR', dir), `message names ${fragment}`);
  return message;
}

function loaded(t: Test, files: Record<string, string>): Policy {
  return loadPolicies(policyDir(t, files));
}

const PUBLIC_HEAD = `upstream: public\nauth: bearer\n${SCOPES_DECLARED}routes:\n`;
const BANKING_HEAD = `upstream: banking\nauth: signature\n${PERMISSIONS_DECLARED}`;

t.test('the shipped policies/public.yaml and policies/banking.yaml load', async (t) => {
  const { routes, vocabulary } = loadPolicies(join(REPO_ROOT, 'policies'));
  t.equal(routes.filter((r) => r.upstream === 'public' && r.auth === 'bearer').length, 12);
  t.equal(routes.filter((r) => r.upstream === 'banking' && r.auth === 'signature').length, 7);
  const refund = routes.find((r) => r.id === 'public:POST /v1/sales/{id}/refund');
  t.same(refund?.scopes, ['sales_refund']);
  const transfers = routes.find((r) => r.id === 'banking:POST /v1/transfers');
  t.same(transfers?.permissions, ['initiate_payment']);

  // The vocabulary the code used to compile in, declared by the files, in the same order.
  t.same([...vocabulary.scopes.keys()], ['stats', 'products', 'events', 'sales', 'sales_refund', 'financial', 'affiliates', 'webhooks']);
  t.ok(
    [...vocabulary.scopes.values()].every((s) => s.description.length > 0 && s.file.endsWith('public.yaml')),
    'each scope is described, in public.yaml',
  );
  t.same(
    [...vocabulary.permissions.values()].map((p) => [p.name, p.description, p.movesMoney]),
    [
      ['view_balance', 'View balance', false],
      ['view_account_details', 'View account details', false],
      ['view_transactions', 'View transactions', false],
      ['list_dict_keys', 'List PIX keys', false],
      ['initiate_payment', 'Create transfers', true],
      ['cancel_scheduled_payments', 'Cancel scheduled payments', true],
      ['refund_transaction', 'Refund transactions', true],
    ],
    'the permissions with the descriptions and marks the dashboard showed',
  );
});

t.test('a valid file: defaults, per-route overrides, ids', async (t) => {
  const { routes } = loaded(t, {
    'a.yaml': `${PUBLIC_HEAD}  - { method: get, path: /v1/sales, scopes: [sales] }\n  - { id: refunds, method: POST, path: "/v1/sales/{id}/refund", scopes: [sales_refund], host: API.example.com }\n`,
  });
  const [list, refund] = routes;
  t.equal(list?.id, 'a:GET /v1/sales');
  t.equal(list?.method, 'GET');
  t.equal(list?.host, null);
  t.equal(refund?.id, 'refunds');
  t.equal(
    loaded(t, { 'p.yaml': `${PUBLIC_HEAD}  - { method: GET, path: /v1/sales, scopes: [sales], host: API.example.com }\n` }).routes[0]?.id,
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
    { 'banking.yaml': `${BANKING_HEAD}routes:\n  - { method: GET, path: /v1/balance, permissions: [view_balances] }\n` },
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
  const { routes } = loaded(t, {
    'public.yaml': `${PUBLIC_HEAD}  - { method: GET, path: "/v1/sales/{id}", scopes: [sales] }\n  - { method: POST, path: /v1/sales/export, scopes: [sales] }\n  - { method: GET, path: /v1/sales, scopes: [sales], host: a.example.com }\n  - { method: GET, path: /v1/sales, scopes: [stats], host: b.example.com }\n`,
  });
  t.equal(routes.length, 4, 'different methods or different hosts do not overlap');
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
  const { routes } = loaded(t, {
    'a.yaml': `${BANKING_HEAD}digest: upstream\nroutes:\n  - { method: POST, path: /v1/a, permissions: [initiate_payment] }\n`,
    'b.yaml': `${BANKING_HEAD}routes:\n  - { method: POST, path: /v1/b, permissions: [initiate_payment] }\n  - { method: PUT, path: /v1/c, permissions: [initiate_payment], digest: upstream }\n`,
  });
  const digests = Object.fromEntries(routes.map((route) => [route.template, route.digest]));
  t.same(digests, { '/v1/a': 'upstream', '/v1/b': 'gateway', '/v1/c': 'upstream' });
  refused(
    t,
    { 'p.yaml': `${PUBLIC_HEAD}  - { method: POST, path: /v1/x, scopes: [sales], digest: upstream }\n` },
    'p.yaml, route POST /v1/x: digest: upstream applies to signed routes only',
  );
  refused(
    t,
    { 'r.yaml': `${BANKING_HEAD}routes:\n  - { method: POST, path: /v1/x, permissions: [initiate_payment], message_signing: fapi-2 }\n` },
    'r.yaml, route POST /v1/x: message_signing applies to bearer routes only',
  );
  refused(
    t,
    { 's.yaml': `${PUBLIC_HEAD}  - { method: POST, path: /v1/x, scopes: [sales], message_signing: jws }\n` },
    'message_signing must be one of none, fapi-2, got "jws"',
  );
  const signed = loaded(t, {
    'p.yaml': `${PUBLIC_HEAD}  - { method: POST, path: /v1/x, scopes: [sales], message_signing: fapi-2, digest: upstream }\n  - { method: GET, path: /v1/y, scopes: [sales] }\n`,
  });
  t.same(
    signed.routes.map((route) => [route.template, route.messageSigning, route.digest]),
    [
      ['/v1/x', 'fapi-2', 'upstream'],
      ['/v1/y', 'none', 'gateway'],
    ],
  );
  refused(
    t,
    { 'q.yaml': `${BANKING_HEAD}routes:\n  - { method: POST, path: /v1/x, permissions: [initiate_payment], digest: client }\n` },
    'digest must be one of gateway, upstream, got "client"',
  );
});

t.test('the vocabulary: declared in any file, in either form, usable from every file', async (t) => {
  const { routes, vocabulary } = loaded(t, {
    'a-vocabulary.yaml': [
      'upstream: crm',
      'auth: bearer',
      'scopes:',
      '  contacts.read: Read contacts',
      '  "contacts:write": { description: Change contacts }',
      'permissions:',
      '  payout: { description: Pay out commissions, moves_money: true }',
      '  statements: { description: Read statements, moves_money: false }',
      '  audit_log: Read the audit log',
      'routes:',
      '  - { method: GET, path: /crm/contacts, scopes: [contacts.read] }',
      '',
    ].join('\n'),
    'b-routes.yaml': [
      'upstream: crm',
      'routes:',
      '  - { method: PUT, path: "/crm/contacts/{id}", auth: bearer, scopes: [contacts.read, "contacts:write"] }',
      '  - { method: POST, path: /crm/payouts, auth: signature, permissions: [payout, audit_log] }',
      '',
    ].join('\n'),
  });
  t.same(
    routes.map((r) => [r.upstream, r.scopes, r.permissions]),
    [
      ['crm', ['contacts.read'], []],
      ['crm', ['contacts.read', 'contacts:write'], []],
      ['crm', [], ['payout', 'audit_log']],
    ],
    'routes of one file name what another declares',
  );
  t.same(
    [...vocabulary.scopes.values()].map((s) => [s.name, s.description]),
    [
      ['contacts.read', 'Read contacts'],
      ['contacts:write', 'Change contacts'],
    ],
  );
  t.same(
    [...vocabulary.permissions.values()].map((p) => [p.name, p.description, p.movesMoney]),
    [
      ['payout', 'Pay out commissions', true],
      ['statements', 'Read statements', false],
      ['audit_log', 'Read the audit log', false],
    ],
  );
});

t.test('a name declared in two files: the same meaning loads, another meaning is refused naming both files', async (t) => {
  const twice = (other: string) => ({
    'a.yaml': `${PUBLIC_HEAD}  - { method: GET, path: /v1/sales, scopes: [sales] }\n`,
    'b.yaml': `upstream: public\nauth: bearer\nscopes:\n  sales: ${other}\nroutes:\n  - { method: GET, path: /v1/stats, scopes: [sales] }\n`,
  });
  t.equal(loaded(t, twice('Read sales')).vocabulary.scopes.get('sales')?.file.endsWith('a.yaml'), true, 'declared alike: one entry, from the first file');
  t.equal(loaded(t, twice('{ description: Read sales }')).vocabulary.scopes.size, 6, 'either form, the same meaning');
  refused(t, twice('Read and refund sales'), '$DIR/b.yaml: scope "sales" is also declared in $DIR/a.yaml with another meaning');
  const banking = (flag: string) => ({
    'a.yaml': `${BANKING_HEAD}routes:\n  - { method: POST, path: /v1/transfers, permissions: [initiate_payment] }\n`,
    'b.yaml': `upstream: banking\nauth: signature\npermissions:\n  initiate_payment: { description: Create transfers${flag} }\nroutes:\n  - { method: POST, path: /v1/pix, permissions: [initiate_payment] }\n`,
  });
  t.equal(loaded(t, banking(', moves_money: true')).routes.length, 2, 'the same description and mark');
  refused(t, banking(''), '$DIR/b.yaml: permission "initiate_payment" is also declared in $DIR/a.yaml with another meaning');
});

t.test('undeclared names are refused with the file, the route and what is declared', async (t) => {
  const message = refused(
    t,
    { 'public.yaml': `upstream: public\nauth: bearer\nroutes:\n  - { method: GET, path: /v1/sales, scopes: [sales] }\n` },
    '$DIR/public.yaml, route GET /v1/sales: unknown scope "sales": declare it under scopes: in a policy file (declared: none)',
  );
  t.notMatch(message, 'permission');
  refused(
    t,
    { 'banking.yaml': `${BANKING_HEAD}routes:\n  - { method: GET, path: /v1/balance, permissions: [view_balance, see_everything] }\n` },
    '$DIR/banking.yaml, route GET /v1/balance: unknown permission "see_everything"',
    '(declared: view_balance, view_transactions, initiate_payment)',
  );
  // A permission is not a scope: the two vocabularies are apart.
  refused(
    t,
    {
      'p.yaml': `${PUBLIC_HEAD}  - { method: GET, path: /v1/sales, scopes: [sales] }\n`,
      'q.yaml': `${BANKING_HEAD}routes:\n  - { method: GET, path: /v1/x, permissions: [sales] }\n`,
    },
    '$DIR/q.yaml, route GET /v1/x: unknown permission "sales"',
  );
});

t.test('upstreams: any name of the upstream form loads (which have URLs is for the settings: test/config/routed-upstreams)', async (t) => {
  const crm = `upstream: crm\nauth: bearer\n${SCOPES_DECLARED}routes:\n`;
  t.equal(
    loaded(t, { 'crm.yaml': `${crm}  - { method: GET, path: /crm/a, scopes: [sales] }\n` }).routes[0]?.upstream,
    'crm',
    'a name other than the shipped two',
  );
  refused(
    t,
    { 'a.yaml': `${PUBLIC_HEAD}  - { method: GET, path: /x, scopes: [sales], upstream: Public_API }\n` },
    '$DIR/a.yaml, route GET /x: upstream must be the name of a configured upstream (a lower-case letter',
    'got "Public_API"',
  );
});

t.test('shape problems read like the loader: file, route number or method and path, field, what is expected, what was given', async (t) => {
  const cases: Array<[string, ...string[]]> = [
    ['routes: 5\n', '$DIR/p.yaml: routes must be a non-empty list of routes, got 5'],
    ['upstream: public\n', '$DIR/p.yaml: routes is required: it must be a non-empty list of routes'],
    ['- a list\n', '$DIR/p.yaml: must be a mapping with routes, got ["a list"]'],
    [`${PUBLIC_HEAD}  - just text\n`, '$DIR/p.yaml, route 1: must be a mapping with method and path, got "just text"'],
    [
      `${PUBLIC_HEAD}  - { path: /v1/sales, scopes: [sales] }\n`,
      '$DIR/p.yaml, route 1: method is required: it must be one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS',
    ],
    [
      `${PUBLIC_HEAD}  - { method: GET, path: v1/sales, scopes: [sales] }\n`,
      '$DIR/p.yaml, route 1: path must be a path template such as /v1/sales/{id}, got "v1/sales"',
    ],
    [
      `${PUBLIC_HEAD}  - { method: GET, path: /v1/sales, scopes: [sales] }\n  - { method: GET, path: /v1/stats, scopes: stats }\n`,
      '$DIR/p.yaml, route GET /v1/stats: scopes must be a list of scope names, got "stats"',
    ],
    [
      `${PUBLIC_HEAD}  - { method: GET, path: /v1/sales, scopes: [sales, Read Sales] }\n`,
      '$DIR/p.yaml, route GET /v1/sales: scopes entry 2 must be a scope name',
    ],
    [
      `${PUBLIC_HEAD}  - { method: GET, path: /v1/sales, scopes: [sales], host: "api.example.com:443" }\n`,
      'route GET /v1/sales: host must be a host name without port or scheme, got "api.example.com:443"',
    ],
    [
      `${PUBLIC_HEAD}  - { method: GET, path: /v1/sales, scopes: [sales], auth: jwt }\n`,
      'route GET /v1/sales: auth must be one of bearer, signature, got "jwt"',
    ],
    [`${PUBLIC_HEAD}  - { method: GET, path: /v1/sales, scopes: [sales], id: [a] }\n`, 'route GET /v1/sales: id must be non-empty text, got ["a"]'],
    [`${PUBLIC_HEAD}  - { method: GET, path: /v1/sales, scopes: [sales], id: " " }\n`, 'route GET /v1/sales: id must be non-empty text, got " "'],
    [
      'upstream: public\nauth: bearer\nscopes: [sales]\nroutes:\n  - { method: GET, path: /x, scopes: [sales] }\n',
      '$DIR/p.yaml: scopes must map scope names',
      'got ["sales"]',
    ],
    [
      'upstream: public\nauth: bearer\nscopes: { "read sales": Read sales }\nroutes:\n  - { method: GET, path: /x, scopes: [sales] }\n',
      '$DIR/p.yaml: scopes must map scope names (a letter or digit, then letters, digits, _ . : or -; at most 64 characters) to descriptions; "read sales" is not one',
    ],
    [
      'upstream: public\nauth: bearer\nscopes: { sales: "" }\nroutes:\n  - { method: GET, path: /x, scopes: [sales] }\n',
      '$DIR/p.yaml: scopes.sales must be a description, or { description }, got ""',
    ],
    [
      `upstream: banking\nauth: signature\npermissions: { pay: { description: Pay, moves_money: yes } }\nroutes:\n  - { method: GET, path: /x, permissions: [pay] }\n`,
      '$DIR/p.yaml: permissions.pay must be a description, or { description, moves_money: true }, got {"description":"Pay","moves_money":"yes"}',
    ],
    [
      `upstream: public\nauth: bearer\nrate_limit: 5\n${SCOPES_DECLARED}routes:\n  - { method: GET, path: /x, scopes: [sales] }\n`,
      '$DIR/p.yaml: rate_limit must be a mapping such as',
    ],
  ];
  for (const [text, ...fragments] of cases) refused(t, { 'p.yaml': text }, ...fragments);
});

t.test('of several shape problems, the first in reading order is reported', async (t) => {
  refused(
    t,
    { 'p.yaml': `upstream: public\nauth: bearer\ncolour: red\n${SCOPES_DECLARED}routes:\n  - { method: FETCH, path: /x, scopes: [sales] }\n` },
    '$DIR/p.yaml: unknown field "colour" (known: upstream, auth, host, rate_limit, digest, message_signing, scopes, permissions, routes)',
  );
  refused(
    t,
    { 'p.yaml': `${PUBLIC_HEAD}  - { method: GET, path: /a, scopes: [sales], auth: jwt, digest: maybe }\n  - { method: FETCH, path: /b }\n` },
    '$DIR/p.yaml, route GET /a: auth must be one of bearer, signature',
  );
  refused(t, { 'p.yaml': `${PUBLIC_HEAD}  - { method: 1, path: 2, extra: 3 }\n` }, '$DIR/p.yaml, route 1: unknown field "extra"');
});
