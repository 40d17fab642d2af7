// Every upstream a policy routes to needs a URL: the start (and a reload) is refused with one problem
// per upstream without one, each naming the variable to set and the files and routes naming it.
import t from 'tap';
import { join } from 'node:path';
import { missingUpstreamUrls } from '../../gateway/config/routed-upstreams.js';
import { settingsFrom } from '../../gateway/config/settings.js';
import { loadPolicies } from '../../gateway/policy/policy-loader.js';
import { policyDir, SCOPES_DECLARED } from '../policy/policy-files.js';

t.test('every upstream a route names needs a URL: all the missing ones at once, each with its variable', async (t) => {
  const { upstreams } = settingsFrom({ upstreams: { ledger: { timeout_ms: 2000 }, billing: 'http://billing.internal' } }, { PUBLIC_UPSTREAM: 'http://public.internal' });
  const routes = [
    { upstream: 'public', file: 'policies/public.yaml', method: 'GET', template: '/v1/sales' },
    { upstream: 'banking', file: 'policies/banking.yaml', method: 'GET', template: '/v1/balance' },
    { upstream: 'ledger', file: 'policies/ledger.yaml', method: 'GET', template: '/v1/ledger' },
    { upstream: 'ledger', file: 'policies/ledger-admin.yaml', method: 'POST', template: '/v1/ledger/close' },
    { upstream: 'billing', file: 'policies/billing.yaml', method: 'GET', template: '/v1/bills' },
    { upstream: 'unknown', file: 'policies/other.yaml', method: 'GET', template: '/v1/other/{id}' },
  ];
  t.same(missingUpstreamUrls(routes, upstreams, 'production'), [
    {
      setting: 'BANKING_UPSTREAM',
      problem:
        'is required in production (or set GATEWAY_UPSTREAM_BANKING, or upstreams.banking in the config file): upstream banking has no URL; routes to it: policies/banking.yaml, route GET /v1/balance',
    },
    {
      setting: 'GATEWAY_UPSTREAM_LEDGER',
      problem:
        'is required in production (or set upstreams.ledger in the config file): upstream ledger has no URL; routes to it: policies/ledger.yaml, route GET /v1/ledger; policies/ledger-admin.yaml, route POST /v1/ledger/close',
    },
    {
      setting: 'GATEWAY_UPSTREAM_UNKNOWN',
      problem:
        'is required in production (or set upstreams.unknown in the config file): upstream unknown is not configured (configured: banking, billing, ledger, public); routes to it: policies/other.yaml, route GET /v1/other/{id}',
    },
  ]);
  t.match(missingUpstreamUrls(routes.slice(2, 3), upstreams, 'development'), [
    { problem: /^is required \(or set upstreams.ledger in the config file\): upstream ledger has no URL; routes to it: policies\/ledger.yaml/ },
  ]);
  t.same(missingUpstreamUrls(routes.slice(0, 1), upstreams, 'production'), [], 'nothing missing');
});

t.test('from policy files: any configured name; every unknown one listed at once, with the files and routes naming it', async (t) => {
  const crm = `upstream: crm\nauth: bearer\n${SCOPES_DECLARED}routes:\n`;
  const pub = `upstream: public\nauth: bearer\n${SCOPES_DECLARED}routes:\n`;
  const missing = (files: Record<string, string>, yaml: Record<string, unknown> = {}) => {
    const dir = policyDir(t, files);
    const { upstreams } = settingsFrom(yaml, { PUBLIC_UPSTREAM: 'http://public.internal', BANKING_UPSTREAM: 'http://banking.internal' });
    const lines = missingUpstreamUrls(loadPolicies(dir).routes, upstreams, 'development').map((p) => `${p.setting}: ${p.problem}`);
    return lines.map((line) => line.replaceAll(dir, '$DIR'));
  };

  const one = { 'crm.yaml': `${crm}  - { method: GET, path: /crm/a, scopes: [sales] }\n` };
  t.same(missing(one, { upstreams: { crm: 'http://crm.internal', 'billing-2': 'http://billing.internal' } }), [], 'a configured name other than the shipped two');

  const lines = missing({
    'a.yaml': `${crm}  - { method: GET, path: /crm/a, scopes: [sales] }\n  - { method: GET, path: /crm/b, scopes: [sales] }\n  - { method: GET, path: /pub, scopes: [sales], upstream: public }\n`,
    'b.yaml': `${pub}  - { method: GET, path: /crm/c, scopes: [sales], upstream: crm }\n  - { method: GET, path: /bill, scopes: [sales], upstream: billing }\n`,
  });
  t.same(lines, [
    'GATEWAY_UPSTREAM_CRM: is required (or set upstreams.crm in the config file): upstream crm is not configured (configured: banking, public); routes to it: $DIR/a.yaml, routes GET /crm/a, GET /crm/b; $DIR/b.yaml, route GET /crm/c',
    'GATEWAY_UPSTREAM_BILLING: is required (or set upstreams.billing in the config file): upstream billing is not configured (configured: banking, public); routes to it: $DIR/b.yaml, route GET /bill',
  ]);
  t.notMatch(lines.join('\n'), '/pub', 'routes to configured upstreams are not listed');

  t.same(missing({ 'public.yaml': `${pub}  - { method: GET, path: /v1/sales, scopes: [sales], upstream: private }\n` }), [
    'GATEWAY_UPSTREAM_PRIVATE: is required (or set upstreams.private in the config file): upstream private is not configured (configured: banking, public); routes to it: $DIR/public.yaml, route GET /v1/sales',
  ]);
  const many = Array.from({ length: 6 }, (_, i) => `  - { method: GET, path: /crm/${i}, scopes: [sales] }\n`).join('');
  t.match(missing({ 'a.yaml': `${crm}${many}` }), [/routes to it: \$DIR\/a\.yaml, routes GET \/crm\/0, GET \/crm\/1, GET \/crm\/2 and 3 more$/]);
});

t.test('a few routes per upstream are named, the rest counted, and every file routing to it', async (t) => {
  const { upstreams } = settingsFrom({ upstreams: { ledger: { timeout_ms: 2000 } } }, {});
  const route = (file: string, path: string) => ({ upstream: 'ledger', file: join('policies', file), method: 'GET', template: path });
  const routes = [route('a.yaml', '/1'), route('a.yaml', '/2'), route('b.yaml', '/3'), route('b.yaml', '/4'), route('b.yaml', '/5'), route('c.yaml', '/6')];
  t.same(missingUpstreamUrls(routes, upstreams, 'development'), [
    {
      setting: 'GATEWAY_UPSTREAM_LEDGER',
      problem:
        'is required (or set upstreams.ledger in the config file): upstream ledger has no URL; routes to it: policies/a.yaml, routes GET /1, GET /2; policies/b.yaml, routes GET /3 and 2 more; policies/c.yaml, 1 route',
    },
  ]);
});
