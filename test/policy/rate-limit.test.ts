// rate_limit in policy files: the accepted forms, inheritance from the file, `none`, and every bad
// value refused at load with a message naming the file and route (at start the gateway stops; on
// reload the running policy stays).
import t, { type Test } from 'tap';
import fc from 'fast-check';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPolicies, parsePolicyFile, PolicyError } from '../../gateway/policy/policy-loader.js';
import { parseRateLimit } from '../../gateway/policy/rate-limit-rule.js';
import { PolicyHolder } from '../../gateway/policy/route-table.js';
import { holds } from '../helpers/property.js';
import { SCOPES_DECLARED } from './policy-files.js';

const FILE = '/etc/gateway/policies/public.yaml';
const HEAD = `upstream: public\nauth: bearer\n${SCOPES_DECLARED}`;

function routeWith(rateLimit: string): string {
  return `${HEAD}routes:\n  - { method: GET, path: /v1/sales, scopes: [sales], rate_limit: ${rateLimit} }\n`;
}

function refusal(text: string): string {
  try {
    parsePolicyFile(FILE, text);
  } catch (error) {
    if (error instanceof PolicyError) return error.message;
    throw error;
  }
  throw new Error(`loaded: ${text}`);
}

t.test('the forms of per, and requests', async (t) => {
  const cases: [string, number][] = [
    ['60', 60],
    ['1s', 1],
    ['30s', 30],
    ['1m', 60],
    ['90m', 5400],
    ['2h', 7200],
    ['1d', 86_400],
    ['86400s', 86_400],
  ];
  for (const [per, seconds] of cases) {
    const [route] = parsePolicyFile(FILE, routeWith(`{ requests: 100, per: ${per} }`)).routes;
    t.same(route?.rateLimit, { requests: 100, perSeconds: seconds }, `per: ${per}`);
  }
  t.same(parsePolicyFile(FILE, routeWith('{ requests: 1, per: 1d }')).routes[0]?.rateLimit, { requests: 1, perSeconds: 86_400 }, 'the smallest quota');
  t.same(parsePolicyFile(FILE, routeWith('{ requests: 10000, per: 1s }')).routes[0]?.rateLimit, { requests: 10_000, perSeconds: 1 }, 'the fastest rate');
  t.equal(
    parsePolicyFile(FILE, `${HEAD}routes:\n  - { method: GET, path: /v1/sales, scopes: [sales] }\n`).routes[0]?.rateLimit,
    null,
    'no rate_limit: not limited',
  );
});

t.test('a file default applies to each route; a route overrides it or opts out with none', async (t) => {
  const { routes } = parsePolicyFile(
    FILE,
    `${HEAD}rate_limit: { requests: 100, per: 1m }\nroutes:\n` +
      '  - { method: GET, path: /v1/sales, scopes: [sales] }\n' +
      '  - { method: GET, path: /v1/stats, scopes: [stats], rate_limit: { requests: 5, per: 1s } }\n' +
      '  - { method: GET, path: /v1/events, scopes: [events], rate_limit: none }\n',
  );
  t.same(
    routes.map((r) => [r.id, r.rateLimit]),
    [
      ['public:GET /v1/sales', { requests: 100, perSeconds: 60 }],
      ['public:GET /v1/stats', { requests: 5, perSeconds: 1 }],
      ['public:GET /v1/events', null],
    ],
  );
  t.equal(parsePolicyFile(FILE, `${HEAD}rate_limit: none\nroutes:\n  - { method: GET, path: /v1/sales, scopes: [sales] }\n`).routes[0]?.rateLimit, null);
});

t.test('bad values are refused naming the file, the route and what is wrong', async (t) => {
  const where = `${FILE}, route GET /v1/sales: `;
  const bad: [string, string][] = [
    ['{ requests: 0, per: 1m }', 'rate_limit.requests must be a whole number from 1 to 1000000'],
    ['{ requests: -5, per: 1m }', 'rate_limit.requests must be a whole number'],
    ['{ requests: 1.5, per: 1m }', 'rate_limit.requests must be a whole number'],
    ['{ requests: "100", per: 1m }', 'rate_limit.requests must be a whole number'],
    ['{ requests: 2000000, per: 1d }', 'rate_limit.requests must be a whole number from 1 to 1000000'],
    ['{ per: 1m }', 'rate_limit.requests must be a whole number'],
    ['{ requests: 100 }', 'rate_limit.per must be whole seconds (60) or a number with a unit s, m, h or d (30s, 1m, 1h), from 1s to 1d; got undefined'],
    ['{ requests: 100, per: 0 }', 'got 0'],
    ['{ requests: 100, per: 0s }', 'got "0s"'],
    ['{ requests: 100, per: 1.5 }', 'got 1.5'],
    ['{ requests: 100, per: 1.5m }', 'got "1.5m"'],
    ['{ requests: 100, per: 1w }', 'got "1w"'],
    ['{ requests: 100, per: "60 s" }', 'got "60 s"'],
    ['{ requests: 100, per: "60" }', 'got "60"'],
    ['{ requests: 100, per: 2d }', 'got "2d"'],
    ['{ requests: 100, per: 86401 }', 'got 86401'],
    ['{ requests: 100, per: [1, m] }', 'got a list'],
    ['{ requests: 100, per: 1m, burst: 10 }', 'rate_limit has an unknown field "burst"'],
    ['{ requests: 100000, per: 1s }', 'rate_limit allows at most 10000 requests a second; 100000 per 1s is more'],
    ['100/1m', 'rate_limit must be a mapping such as { requests: 100, per: 1m }, or none'],
    ['[100, 1m]', 'rate_limit must be a mapping'],
    ['~', 'rate_limit must be a mapping'],
    ['off', 'rate_limit must be a mapping'],
  ];
  for (const [value, problem] of bad) {
    const message = refusal(routeWith(value));
    t.ok(message.startsWith(where) && message.includes(problem), `${value}: ${message}`);
  }
  t.equal(
    refusal(`${HEAD}rate_limit: { requests: 0, per: 1m }\nroutes:\n  - { method: GET, path: /v1/sales, scopes: [sales] }\n`),
    `${FILE}: rate_limit.requests must be a whole number from 1 to 1000000`,
    'a bad file default names the file',
  );
  t.equal(
    refusal(`${HEAD}routes:\n  - { id: "ventes-é", method: GET, path: /v1/sales, scopes: [sales], rate_limit: { requests: 1, per: 1s } }\n`),
    `${where}a rate-limited route needs an id of printable ASCII (it names the limit in the RateLimit headers)`,
  );
});

function policyDir(t: Test, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'gw-rl-policy-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'public.yaml'), text);
  return dir;
}

t.test('a bad rate_limit stops the start, and on reload keeps the running policy', async (t) => {
  const dir = policyDir(t, routeWith('{ requests: 0, per: 1m }'));
  t.throws(
    () => loadPolicies(dir),
    new PolicyError(`${join(dir, 'public.yaml')}, route GET /v1/sales: rate_limit.requests must be a whole number from 1 to 1000000`),
  );
  writeFileSync(join(dir, 'public.yaml'), routeWith('{ requests: 10, per: 1m }'));
  const holder = new PolicyHolder(() => loadPolicies(dir));
  t.same(holder.current.routes[0]?.rateLimit, { requests: 10, perSeconds: 60 });
  writeFileSync(join(dir, 'public.yaml'), routeWith('{ requests: 10, per: 1 minute }'));
  const result = holder.reload();
  t.equal(result.ok, false);
  t.equal(
    result.error,
    `${join(dir, 'public.yaml')}, route GET /v1/sales: rate_limit.per must be whole seconds (60) or a number with a unit s, m, h or d (30s, 1m, 1h), from 1s to 1d; got "1 minute"`,
  );
  t.same(holder.current.routes[0]?.rateLimit, { requests: 10, perSeconds: 60 }, 'the running rule is kept');
});

t.test('any value either gives a valid rule or is refused with an Error', async (t) => {
  const scalar = fc.oneof(
    fc.integer({ min: -10, max: 200_000 }),
    fc.double(),
    fc.string({ maxLength: 8 }),
    fc.constantFrom('1s', '1m', '24h', '1d', '2d', '0s', 'none', '60'),
    fc.constant(null),
    fc.boolean(),
  );
  const value = fc.oneof(
    scalar,
    fc.record({ requests: scalar, per: scalar }, { requiredKeys: [] }),
    fc.dictionary(fc.string({ maxLength: 8 }), scalar, { maxKeys: 3 }),
    fc.array(scalar, { maxLength: 3 }),
  );
  holds(
    t,
    fc.property(value, (v) => {
      let rule;
      try {
        rule = parseRateLimit(v);
      } catch (error) {
        if (error instanceof Error && /^rate_limit/.test(error.message)) return;
        throw error;
      }
      if (rule === null) return;
      if (!Number.isSafeInteger(rule.requests) || rule.requests < 1 || rule.requests > 1_000_000) throw new Error(`requests ${rule.requests}`);
      if (!Number.isSafeInteger(rule.perSeconds) || rule.perSeconds < 1 || rule.perSeconds > 86_400) throw new Error(`per ${rule.perSeconds}`);
      if (rule.requests / rule.perSeconds > 10_000) throw new Error('too fast');
    }),
    500,
  );
});
