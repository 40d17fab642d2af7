// The checks called one stage at a time, without a gateway: identify, authorize and limit take the
// described request (and a principal) and answer with a value or the catalog error; the checker
// strings them together into a verdict.
import t, { type Test } from 'tap';
import { GatewayError } from '../../gateway/errors.js';
import { parseAddress, parseCidrList } from '../../gateway/net/cidr.js';
import { assemblePolicy, parsePolicyFile } from '../../gateway/policy/policy-loader.js';
import type { RateLimitRule } from '../../gateway/policy/rate-limit-rule.js';
import { RouteTable } from '../../gateway/policy/route-table.js';
import type { ServiceAccountRecord } from '../../gateway/store/types.js';
import { authorize } from '../../gateway/pipeline/authorize.js';
import { identify, type IdentifiedRequest } from '../../gateway/pipeline/identify.js';
import { limit, type RateLimitStore } from '../../gateway/pipeline/limit.js';
import type { OriginalRequest } from '../../gateway/pipeline/original-request.js';
import type { ClientPrincipal, ServiceAccountPrincipal } from '../../gateway/pipeline/principal.js';

const ROUTES = new RouteTable(
  assemblePolicy([
    parsePolicyFile(
      'public.yaml',
      `upstream: public
auth: bearer
scopes: { sales: Read sales, events: Read events }
routes:
  - { method: GET, path: "/v1/sales/{id}", scopes: [sales] }
  - { method: GET, path: /v1/events, scopes: [events], rate_limit: { requests: 2, per: 1m } }
`,
    ),
    parsePolicyFile(
      'banking.yaml',
      `upstream: banking
auth: signature
permissions: { initiate_payment: { description: Create transfers, moves_money: true } }
routes:
  - { method: POST, path: /v1/transfers, permissions: [initiate_payment] }
`,
    ),
  ]),
);
const SETTINGS = { trustedProxies: parseCidrList(['10.0.0.0/8']) };
const PEER = parseAddress('198.51.100.7');

function described(method: string, url: string, more: Partial<OriginalRequest> = {}): OriginalRequest {
  return { method, url, authority: 'api.test', protocol: 'https', headers: {}, rawHeaders: [], declaredLength: 0, hasBody: false, body: 'stream', ...more };
}

function identified(method: string, url: string): IdentifiedRequest {
  return identify(described(method, url), PEER, ROUTES, SETTINGS);
}

const CLIENT: ClientPrincipal = { kind: 'client', clientId: 'client-1', accountId: null, scopes: ['sales', 'events'] };

function serviceAccount(permissions: string[], allowedIps: string[]): ServiceAccountPrincipal {
  const account: ServiceAccountRecord = {
    id: 'sa-1',
    accessId: '3f2b9c1e-7a4d-4e8f-9b6a-2c1d0e5f4a3b',
    description: 'test',
    publicKey: '',
    publicKeyBytes: '',
    fingerprint: '',
    permissions,
    allowedIps,
    accountId: null,
    createdAt: '2026-01-01T00:00:00Z',
    lastUsedAt: null,
    lastUsedIp: null,
    expiresAt: null,
    publicKeys: [{ publicKey: '', publicKeyBytes: '', fingerprint: '', addedAt: '2026-01-01T00:00:00Z' }],
  };
  return { kind: 'service-account', account, fingerprint: '' };
}

function refusedWith(t: Test, run: () => unknown, code: string, status: number): GatewayError {
  try {
    run();
  } catch (error) {
    t.type(error, GatewayError);
    t.equal((error as GatewayError).code, code);
    t.equal((error as GatewayError).status, status);
    return error as GatewayError;
  }
  t.fail(`expected ${code}`);
  return new GatewayError('internal_error');
}

/** A rate-limit store that allows up to `capacity` takes and records who took them. */
function countingStore(capacity: number) {
  const takes: { credential: string; route: string }[] = [];
  const store: RateLimitStore = {
    async takeRateLimit(credential: string, route: string, _rule: RateLimitRule) {
      takes.push({ credential, route });
      const allowed = takes.length <= capacity;
      return { allowed, remaining: allowed ? capacity - takes.length : 0, retryAfterSeconds: allowed ? 0 : 30, resetSeconds: 60 };
    },
  };
  return { store, takes };
}

t.test('identify: the route, the checked target and the client address, from the described request alone', async (t) => {
  const request = identified('GET', '/v1/sales/42?x=1');
  t.equal(request.route.id, 'public:GET /v1/sales/{id}');
  t.equal(request.target.path, '/v1/sales/42');
  t.equal(request.target.query, 'x=1');
  t.equal(request.clientAddress?.toString(), '198.51.100.7', 'an untrusted peer is the client');

  const forwarded = described('GET', '/v1/sales/42', { headers: { 'x-forwarded-for': '203.0.113.9' } });
  t.equal(identify(forwarded, parseAddress('10.1.2.3'), ROUTES, SETTINGS).clientAddress?.toString(), '203.0.113.9', 'a trusted proxy names the client');
  t.equal(identify(forwarded, PEER, ROUTES, SETTINGS).clientAddress?.toString(), '198.51.100.7', 'an untrusted peer cannot');

  refusedWith(t, () => identified('GET', '/v1/nowhere'), 'route_not_found', 404);
  refusedWith(t, () => identified('DELETE', '/v1/sales/42'), 'route_not_found', 404);
  refusedWith(t, () => identified('GET', '/v1/sales/%2e%2e/x'), 'ambiguous_path', 400);
  // A signed body an edge proxy keeps, on a route that does not delegate its digest check.
  const withheld = described('POST', '/v1/transfers', { hasBody: true, declaredLength: 14, body: 'withheld' });
  refusedWith(t, () => identify(withheld, PEER, ROUTES, SETTINGS), 'body_not_checkable', 403);
});

t.test('authorize: scopes for a client, allow-list and permissions for a service account', async (t) => {
  const sale = identified('GET', '/v1/sales/42');
  t.doesNotThrow(() => authorize(sale, CLIENT));
  const denied = refusedWith(t, () => authorize(sale, { ...CLIENT, scopes: ['events'] }), 'insufficient_scope', 403);
  t.equal(denied.headers['www-authenticate'], 'Bearer realm="gateway", error="insufficient_scope", scope="sales"');
  t.equal(denied.message, 'This route requires the scope sales.');

  const transfer = identified('POST', '/v1/transfers');
  t.doesNotThrow(() => authorize(transfer, serviceAccount(['initiate_payment'], ['198.51.100.0/24'])));
  const outside = refusedWith(t, () => authorize(transfer, serviceAccount(['initiate_payment'], ['192.0.2.0/24'])), 'ip_not_allowed', 403);
  t.equal(outside.message, "The address 198.51.100.7 is not in this service account's allow-list.");
  const lacking = refusedWith(t, () => authorize(transfer, serviceAccount(['view_balance'], ['198.51.100.0/24'])), 'permission_denied', 403);
  t.equal(lacking.message, 'This route requires the permission initiate_payment.');
});

t.test('limit: a unit per request with its RateLimit fields, refused with Retry-After once spent; an unlimited route asks nothing', async (t) => {
  const { store, takes } = countingStore(2);
  t.equal(await limit(store, identified('GET', '/v1/sales/42'), CLIENT), undefined, 'no limit, no unit');
  t.same(takes, [], 'and no store call');

  const events = identified('GET', '/v1/events');
  const first = await limit(store, events, CLIENT);
  t.same(first, {
    credential: 'client-1',
    routeId: 'public:GET /v1/events',
    fields: { 'ratelimit-policy': '"public:GET /v1/events";q=2;w=60', ratelimit: '"public:GET /v1/events";r=1;t=60' },
  });
  t.equal((await limit(store, events, CLIENT))?.fields.ratelimit, '"public:GET /v1/events";r=0;t=60');
  let refused: unknown;
  await limit(store, events, CLIENT).catch((error: unknown) => (refused = error));
  t.type(refused, GatewayError);
  t.equal((refused as GatewayError).code, 'rate_limited');
  t.same((refused as GatewayError).headers, {
    'retry-after': '30',
    'ratelimit-policy': '"public:GET /v1/events";q=2;w=60',
    ratelimit: '"public:GET /v1/events";r=0;t=30',
  });
  t.same(takes, [
    { credential: 'client-1', route: 'public:GET /v1/events' },
    { credential: 'client-1', route: 'public:GET /v1/events' },
    { credential: 'client-1', route: 'public:GET /v1/events' },
  ]);
});

t.test("limit: a unit this request already took is carried, not taken again; another credential's is not", async (t) => {
  const { store, takes } = countingStore(5);
  const events = identified('GET', '/v1/events');
  const unit = await limit(store, events, CLIENT);
  t.equal(await limit(store, events, CLIENT, unit), unit, 'the same credential on the same route: the same unit');
  t.equal(takes.length, 1, 'one store call');
  const other = await limit(store, events, { ...CLIENT, clientId: 'client-2' }, unit);
  t.equal(other?.credential, 'client-2');
  t.equal(takes.length, 2, 'another credential is charged');
});
