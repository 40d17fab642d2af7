// The checks strung together (stages 1-5) into a verdict, without a gateway: an allowed request with
// its identity headers and RateLimit fields, a refusal with its catalog error and the fields it
// earned, and the second pass after a credential changed, which takes no second rate-limit unit.
import t from 'tap';
import pino from 'pino';
import { parseCidrList } from '../../gateway/net/cidr.js';
import { assemblePolicy, parsePolicyFile } from '../../gateway/policy/policy-loader.js';
import { RouteTable } from '../../gateway/policy/route-table.js';
import { CredentialChangedError, type Authenticator } from '../../gateway/pipeline/authenticate/authenticator.js';
import { NO_BODY } from '../../gateway/pipeline/body-source.js';
import type { RateLimitStore } from '../../gateway/pipeline/limit.js';
import type { OriginalRequest } from '../../gateway/pipeline/original-request.js';
import { requestChecker, type CheckInput } from '../../gateway/pipeline/pipeline.js';
import type { ClientPrincipal } from '../../gateway/pipeline/principal.js';

const ROUTES = new RouteTable(
  assemblePolicy([
    parsePolicyFile(
      'public.yaml',
      `upstream: public
auth: bearer
rate_limit: { requests: 1, per: 1m }
scopes: { sales: Read sales, products: Read products }
routes:
  - { method: GET, path: /v1/sales, scopes: [sales] }
  - { method: GET, path: /v1/products, scopes: [products] }
`,
    ),
  ]),
);
const SALES_FIELDS = { 'ratelimit-policy': '"public:GET /v1/sales";q=1;w=60', ratelimit: '"public:GET /v1/sales";r=0;t=60' };

function input(url: string): CheckInput {
  const original: OriginalRequest = {
    method: 'GET',
    url,
    authority: 'api.test',
    protocol: 'https',
    headers: {},
    rawHeaders: [],
    declaredLength: 0,
    hasBody: false,
    body: 'stream',
  };
  return { original, peer: undefined, body: NO_BODY, log: pino({ enabled: false }) };
}

/** A store allowing one request per credential and route, counting every unit taken. */
function oneEach() {
  let takes = 0;
  const taken = new Set<string>();
  const store: RateLimitStore = {
    async takeRateLimit(credential, route) {
      takes += 1;
      const allowed = !taken.has(`${credential} ${route}`);
      taken.add(`${credential} ${route}`);
      return { allowed, remaining: 0, retryAfterSeconds: allowed ? 0 : 60, resetSeconds: 60 };
    },
  };
  return { store, takes: () => takes };
}

/** A scheme whose admission finds the credential changed the first `changes` times it runs. */
function changingCredential(changes: number) {
  const calls = { authenticate: 0, admit: 0 };
  const principal: ClientPrincipal = { kind: 'client', clientId: 'client-1', accountId: 'acct-7', scopes: ['sales'] };
  const authenticator: Authenticator = {
    async authenticate() {
      calls.authenticate += 1;
      return {
        principal,
        admission: {
          async admit() {
            calls.admit += 1;
            if (calls.admit <= changes) throw new CredentialChangedError();
            return undefined;
          },
        },
      };
    },
  };
  return { authenticator, calls };
}

function checkerWith(authenticator: Authenticator, store: RateLimitStore) {
  return requestChecker({
    settings: { trustedProxies: parseCidrList([]) },
    routes: () => ROUTES,
    authenticators: { bearer: authenticator, signature: authenticator },
    rateLimits: store,
  });
}

t.test('allowed: the principal, the identity headers and the RateLimit fields, as a value', async (t) => {
  const { store } = oneEach();
  const verdict = await checkerWith(changingCredential(0).authenticator, store)(input('/v1/sales'));
  t.equal(verdict.allowed, true);
  if (!verdict.allowed) return;
  t.equal(verdict.request.route.id, 'public:GET /v1/sales');
  t.same(verdict.identityHeaders, { 'x-gateway-client-id': 'client-1', 'x-gateway-scopes': 'sales', 'x-gateway-account-id': 'acct-7' });
  t.same(verdict.responseFields, SALES_FIELDS);
  t.equal(verdict.body, undefined);
});

t.test('refused: the catalog error, how far the checks got, and the fields earned before the refusal', async (t) => {
  const { store } = oneEach();
  const check = checkerWith(changingCredential(0).authenticator, store);
  const unknown = await check(input('/v1/nowhere'));
  t.match(unknown, { allowed: false, request: undefined, responseFields: {} });
  if (!unknown.allowed) t.equal(unknown.error.code, 'route_not_found');
  const noScope = await check(input('/v1/products'));
  t.equal(noScope.allowed, false);
  if (!noScope.allowed) {
    t.equal(noScope.error.code, 'insufficient_scope');
    t.equal(noScope.error.status, 403);
    t.equal(noScope.request?.route.id, 'public:GET /v1/products', 'the route it was refused on');
  }
  t.equal((await check(input('/v1/sales'))).allowed, true);
  const limited = await check(input('/v1/sales'));
  t.equal(limited.allowed, false);
  if (!limited.allowed) {
    t.equal(limited.error.code, 'rate_limited');
    t.equal(limited.error.headers['retry-after'], '60');
  }
});

t.test('a credential that changed while the request was checked: checked again, one rate-limit unit taken', async (t) => {
  const { store, takes } = oneEach();
  const { authenticator, calls } = changingCredential(1);
  const verdict = await checkerWith(authenticator, store)(input('/v1/sales'));
  t.equal(verdict.allowed, true, 'the second pass allows it (a second unit would have been refused: one per minute)');
  t.same(calls, { authenticate: 2, admit: 2 }, 'every stage ran twice');
  t.equal(takes(), 1, 'the limit took one unit');
  t.same(verdict.responseFields, SALES_FIELDS, 'with the fields of that unit');
});

t.test('a credential that changed twice: 503 server_busy with Retry-After, still one unit and its fields', async (t) => {
  const { store, takes } = oneEach();
  const verdict = await checkerWith(changingCredential(2).authenticator, store)(input('/v1/sales'));
  t.equal(verdict.allowed, false);
  if (verdict.allowed) return;
  t.equal(verdict.error.code, 'server_busy');
  t.equal(verdict.error.status, 503);
  t.equal(verdict.error.headers['retry-after'], '1');
  t.equal(takes(), 1);
  t.same(verdict.responseFields, SALES_FIELDS);
});
