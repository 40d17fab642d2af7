// Rate limits of policy routes, per credential, on both stores: N requests pass with the RateLimit
// fields (draft-ietf-httpapi-ratelimit-headers-11), the next gets 429 rate_limited with Retry-After
// and never reaches the upstream; quotas are per credential and per route and refill; concurrent
// requests never overshoot; a limited signed request burns no nonce; the store is asked once per
// limited request and never for an unlimited route, also when a changed account has the request
// checked twice; a store failure fails closed.
import t, { type Test } from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { InjectOptions } from 'fastify';
import { downstreamHeaderList } from '../../gateway/pipeline/mutate.js';
import { StoreUnavailableError } from '../../gateway/store/types.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { accessToken, createClient } from '../helpers/oauth.js';
import { recordingStore } from '../helpers/recording-store.js';
import { createServiceAccount, signedHeaders, signedInject } from '../helpers/signing.js';

const PUBLIC_POLICY = `upstream: public
auth: bearer
rate_limit: { requests: 3, per: 1m }
scopes: { sales: Read sales, products: Read products, events: Read events, stats: Read sales statistics }
routes:
  - { method: GET, path: /v1/sales,        scopes: [sales] }
  - { method: GET, path: "/v1/sales/{id}", scopes: [sales] }
  - { method: GET, path: /v1/products,     scopes: [products], rate_limit: { requests: 2, per: 2s } }
  - { method: GET, path: /v1/events,       scopes: [events],   rate_limit: { requests: 10, per: 60 } }
  - { method: GET, path: /v1/stats,        scopes: [stats],    rate_limit: none }
`;
const BANKING_POLICY = `upstream: banking
auth: signature
permissions:
  view_balance: View balance
  view_account_details: View account details
  view_transactions: View transactions
  list_dict_keys: List PIX keys
  initiate_payment: { description: Create transfers, moves_money: true }
  cancel_scheduled_payments: { description: Cancel scheduled payments, moves_money: true }
  refund_transaction: { description: Refund transactions, moves_money: true }
routes:
  - { method: GET,  path: /v1/balance,   permissions: [view_balance],         rate_limit: { requests: 1, per: 1s } }
  - { method: POST, path: /v1/transfers, permissions: [initiate_payment],     rate_limit: { requests: 1, per: 1h } }
  - { method: GET,  path: /v1/account,   permissions: [view_account_details] }
`;
const SALE = 'public:GET /v1/sales/{id}';

interface LimitedGateway {
  tg: TestGateway;
  /** Store methods called, by name, in order (clear it before the request to look at). */
  calls: string[];
  /** While on, takeRateLimit fails as an unreachable store does. */
  failing: { on: boolean };
  /** Answers given once in the store's place, by method name. */
  answerOnce: Map<string, unknown>;
}

async function startLimitedGateway(t: Test, kind: 'redis' | 'embedded'): Promise<LimitedGateway> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-limits-'));
  writeFileSync(join(dir, 'public.yaml'), PUBLIC_POLICY);
  writeFileSync(join(dir, 'banking.yaml'), BANKING_POLICY);
  const calls: string[] = [];
  const failing = { on: false };
  const answerOnce = new Map<string, unknown>();
  const standIn = (name: string) => {
    if (name === 'takeRateLimit' && failing.on) return Promise.reject(new StoreUnavailableError(new Error('connection refused')));
    if (!answerOnce.has(name)) return undefined;
    const answer = answerOnce.get(name);
    answerOnce.delete(name);
    return Promise.resolve(answer);
  };
  const tg = await startTestGateway(t, { store: kind, config: { policies_dir: dir }, wrapStore: (store) => recordingStore(store, calls, standIn) });
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return { tg, calls, failing, answerOnce };
}

/** A client with the scopes, and a GET with its token. */
async function bearerCaller(tg: TestGateway, scopes: string[]) {
  const token = await accessToken(tg, await createClient(tg, scopes));
  return (url: string) => tg.gateway.publicApp.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
}

/** The store calls one request makes (last-use recording is batched off the request path). */
async function callsDuring(limited: LimitedGateway, send: () => Promise<unknown>): Promise<string[]> {
  limited.calls.length = 0;
  await send();
  return limited.calls.filter((name) => name !== 'recordServiceAccountUse');
}

async function metricLine(tg: TestGateway, name: string): Promise<string> {
  return tg.gateway.metrics.registry.getSingleMetricAsString(name);
}

function rateLimitedBody(requestId: unknown, requests: number, seconds: number, wait: number) {
  return {
    error: 'rate_limited',
    message: `This credential may send ${requests} requests per ${seconds} seconds to this route; retry in ${wait} seconds.`,
    request_id: requestId,
  };
}

for (const kind of ['redis', 'embedded'] as const) {
  t.test(`${kind}: a Bearer route allows N requests with the RateLimit fields, then 429 with Retry-After; the upstream never sees it`, async (t) => {
    const limited = await startLimitedGateway(t, kind);
    const { tg } = limited;
    const get = await bearerCaller(tg, ['sales']);
    // 3 per minute: one every 20 s, so the quota is whole 20 s after each request.
    for (const [remaining, reset] of [
      [2, 20],
      [1, 40],
      [0, 60],
    ] as const) {
      const response = await get('/v1/sales/42');
      t.equal(response.statusCode, 200, response.body);
      t.equal(response.headers['ratelimit-policy'], `"${SALE}";q=3;w=60`);
      t.equal(response.headers.ratelimit, `"${SALE}";r=${remaining};t=${reset}`);
      t.equal(response.json().url, '/v1/sales/42', 'the upstream answered');
    }
    const forwarded = tg.upstreams.public.received.length;
    let refused!: Awaited<ReturnType<typeof get>>;
    t.same(
      await callsDuring(limited, async () => (refused = await get('/v1/sales/42'))),
      ['bearerState', 'takeRateLimit'],
      'one store round trip for the limit',
    );
    t.equal(refused.statusCode, 429);
    t.same(refused.json(), rateLimitedBody(refused.json().request_id, 3, 60, 20));
    t.match(refused.json().request_id, /^[0-9a-f-]{36}$/);
    t.equal(refused.headers['retry-after'], '20');
    t.equal(refused.headers['ratelimit-policy'], `"${SALE}";q=3;w=60`);
    t.equal(refused.headers.ratelimit, `"${SALE}";r=0;t=20`, 't is no earlier than Retry-After');
    t.equal(tg.upstreams.public.received.length, forwarded, 'the limited request was not forwarded');
    t.match(await metricLine(tg, 'gateway_rate_limited_requests_total'), `gateway_rate_limited_requests_total{route="${SALE}"} 1`);
    t.match(await metricLine(tg, 'gateway_requests_total'), `gateway_requests_total{route="${SALE}",outcome="rate_limited",status_class="4xx"} 1`);
  });

  t.test(`${kind}: limits are per credential and per route; an unlimited route costs no store call and has no fields`, async (t) => {
    const limited = await startLimitedGateway(t, kind);
    const { tg } = limited;
    const first = await bearerCaller(tg, ['sales', 'stats']);
    const second = await bearerCaller(tg, ['sales']);
    for (let i = 0; i < 3; i++) t.equal((await first('/v1/sales/1')).statusCode, 200);
    t.equal((await first('/v1/sales/1')).statusCode, 429);
    const other = await second('/v1/sales/1');
    t.equal(other.statusCode, 200, 'a second client is not affected');
    t.equal(other.headers.ratelimit, `"${SALE}";r=2;t=20`, 'and has its whole quota');
    const otherRoute = await first('/v1/sales');
    t.equal(otherRoute.statusCode, 200, 'the same client on another route (same file default) is not affected');
    t.equal(otherRoute.headers.ratelimit, '"public:GET /v1/sales";r=2;t=20');
    t.equal((await first('/v1/sales/2')).statusCode, 429, 'every path of one route shares its quota');
    for (let i = 0; i < 5; i++) {
      let stats!: Awaited<ReturnType<typeof first>>;
      t.same(await callsDuring(limited, async () => (stats = await first('/v1/stats'))), ['bearerState'], 'rate_limit: none: no store call for it');
      t.equal(stats.statusCode, 200);
      t.equal(stats.headers.ratelimit, undefined);
      t.equal(stats.headers['ratelimit-policy'], undefined);
    }
  });

  t.test(`${kind}: the quota refills: after Retry-After the next request passes`, async (t) => {
    const { tg } = await startLimitedGateway(t, kind);
    const get = await bearerCaller(tg, ['products']);
    t.equal((await get('/v1/products')).headers.ratelimit, '"public:GET /v1/products";r=1;t=1');
    t.equal((await get('/v1/products')).headers.ratelimit, '"public:GET /v1/products";r=0;t=2');
    const refused = await get('/v1/products');
    t.equal(refused.statusCode, 429);
    t.equal(refused.headers['retry-after'], '1', '2 per 2 s: one request a second');
    t.same(refused.json(), rateLimitedBody(refused.json().request_id, 2, 2, 1));
    await sleep(Number(refused.headers['retry-after']) * 1000 + 50);
    const again = await get('/v1/products');
    t.equal(again.statusCode, 200, 'allowed once Retry-After has passed');
    t.equal(again.headers.ratelimit, '"public:GET /v1/products";r=0;t=2', 'one request came back, not the whole burst');
    t.equal((await get('/v1/products')).statusCode, 429);
  });

  t.test(`${kind}: 100 concurrent requests against a limit of 10: exactly 10 forwarded, 90 counted as limited`, async (t) => {
    const { tg } = await startLimitedGateway(t, kind);
    const get = await bearerCaller(tg, ['events']);
    const forwarded = tg.upstreams.public.received.length;
    const responses = await Promise.all(Array.from({ length: 100 }, () => get('/v1/events')));
    t.equal(responses.filter((r) => r.statusCode === 200).length, 10);
    t.equal(responses.filter((r) => r.statusCode === 429 && r.json().error === 'rate_limited').length, 90);
    t.same(
      responses
        .filter((r) => r.statusCode === 200)
        .map((r) => /;r=(\d+);/.exec(String(r.headers.ratelimit))?.[1])
        .sort(),
      ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'],
    );
    t.equal(tg.upstreams.public.received.length - forwarded, 10, 'the upstream saw exactly 10');
    t.match(await metricLine(tg, 'gateway_rate_limited_requests_total'), 'gateway_rate_limited_requests_total{route="public:GET /v1/events"} 90');
  });

  t.test(`${kind}: a signed route: the limited request never reaches the upstream and burns no nonce`, async (t) => {
    const limited = await startLimitedGateway(t, kind);
    const { tg } = limited;
    const sa = await createServiceAccount(tg);
    const other = await createServiceAccount(tg);
    const balance = '"banking:GET /v1/balance"';
    const first = await signedInject(tg, sa, { method: 'GET', url: '/v1/balance' });
    t.equal(first.statusCode, 200, first.body);
    t.equal(first.headers['ratelimit-policy'], `${balance};q=1;w=1`);
    t.equal(first.headers.ratelimit, `${balance};r=0;t=1`);
    const received = tg.upstreams.banking.received.length;

    // One signed request, sent twice: limited first, then (after Retry-After) admitted.
    const headers = signedHeaders(sa, { method: 'GET', url: '/v1/balance' });
    const send = () => tg.gateway.publicApp.inject({ method: 'GET', url: '/v1/balance', headers } as InjectOptions);
    let refused!: Awaited<ReturnType<typeof send>>;
    t.same(
      await callsDuring(limited, async () => (refused = await send())),
      ['serviceAccountForRequest', 'takeRateLimit'],
      'refused before admit: no consumeNonce',
    );
    t.equal(refused.statusCode, 429);
    t.same(refused.json(), rateLimitedBody(refused.json().request_id, 1, 1, 1));
    t.equal(refused.headers['retry-after'], '1');
    t.equal(refused.headers.ratelimit, `${balance};r=0;t=1`);
    t.equal(refused.headers['accept-signature'], undefined, 'a 429 is not a signature problem');
    t.equal(tg.upstreams.banking.received.length, received, 'the limited request never reached the upstream');
    t.equal((await signedInject(tg, other, { method: 'GET', url: '/v1/balance' })).statusCode, 200, 'another service account is not affected');

    await sleep(Number(refused.headers['retry-after']) * 1000 + 50);
    const retried = await send();
    t.equal(retried.statusCode, 200, 'the same signed request passes after Retry-After: its nonce was not consumed');
    t.equal(tg.upstreams.banking.received.length, received + 2);
    const replayed = await send();
    t.equal(replayed.statusCode, 401);
    t.equal(replayed.json().error, 'nonce_replayed', 'once admitted, the nonce is used');
  });

  t.test(`${kind}: an account that changed while its request was checked: checked again, charged once`, async (t) => {
    const limited = await startLimitedGateway(t, kind);
    const { tg } = limited;
    const sa = await createServiceAccount(tg);
    // The store reports the account changed since it was read, as when an admin edits it between the two round trips.
    limited.answerOnce.set('consumeNonce', 'account_changed');
    let response!: Awaited<ReturnType<typeof signedInject>>;
    const calls = await callsDuring(limited, async () => (response = await signedInject(tg, sa, { method: 'GET', url: '/v1/balance' })));
    t.equal(response.statusCode, 200, `allowed on the second pass, not refused by its own first unit (one a second): ${response.body}`);
    t.same(
      calls,
      ['serviceAccountForRequest', 'takeRateLimit', 'consumeNonce', 'serviceAccountForRequest', 'consumeNonce'],
      'every check again, the rate-limit unit carried',
    );
    t.equal(response.headers.ratelimit, '"banking:GET /v1/balance";r=0;t=1', 'the fields of the one unit');
    t.equal(tg.upstreams.banking.received.length, 1, 'forwarded once');
  });

  t.test(`${kind}: a signed POST over its limit: its body is never read or forwarded`, async (t) => {
    const { tg } = await startLimitedGateway(t, kind);
    const sa = await createServiceAccount(tg);
    const body = JSON.stringify({ amount: '10.00', currency: 'BRL', to: 'pix-key' });
    const post = () => signedInject(tg, sa, { method: 'POST', url: '/v1/transfers', headers: { 'content-type': 'application/json' }, body });
    t.equal((await post()).statusCode, 200);
    const refused = await post();
    t.equal(refused.statusCode, 429);
    t.same(refused.json(), rateLimitedBody(refused.json().request_id, 1, 3600, 3600));
    t.equal(refused.headers['retry-after'], '3600');
    t.equal(refused.headers.ratelimit, '"banking:POST /v1/transfers";r=0;t=3600');
    t.equal(tg.upstreams.banking.received.length, 1, 'only the first transfer was forwarded');
  });
}

t.test('the store cannot be reached: a rate-limited route answers 503 and forwards nothing', async (t) => {
  const limited = await startLimitedGateway(t, 'embedded');
  const { tg } = limited;
  const get = await bearerCaller(tg, ['sales', 'stats']);
  t.equal((await get('/v1/sales/1')).statusCode, 200, 'control');
  limited.failing.on = true;
  const forwarded = tg.upstreams.public.received.length;
  const response = await get('/v1/sales/1');
  t.equal(response.statusCode, 503);
  t.same(response.json(), {
    error: 'store_unavailable',
    message: 'The credential store cannot be reached; the request was not forwarded.',
    request_id: response.json().request_id,
  });
  t.equal(response.headers.ratelimit, undefined);
  t.equal(tg.upstreams.public.received.length, forwarded, 'not forwarded unchecked');
  t.equal((await get('/v1/stats')).statusCode, 200, 'an unlimited route does not need the limit');
});

t.test("GET /admin/v1/policy shows each route's rate limit", async (t) => {
  const { tg } = await startLimitedGateway(t, 'embedded');
  const response = await tg.gateway.adminApp.inject({ method: 'GET', url: '/admin/v1/policy', headers: { authorization: `Bearer ${tg.adminToken}` } });
  t.equal(response.statusCode, 200);
  const routes = response.json<{ routes: { id: string; rate_limit: unknown }[] }>().routes;
  const limitOf = (id: string) => routes.find((r) => r.id === id)?.rate_limit;
  t.same(limitOf(SALE), { requests: 3, per_seconds: 60 }, 'the file default');
  t.same(limitOf('public:GET /v1/products'), { requests: 2, per_seconds: 2 }, "a route's own");
  t.equal(limitOf('public:GET /v1/stats'), null, 'none opts out of the default');
  t.same(limitOf('banking:POST /v1/transfers'), { requests: 1, per_seconds: 3600 });
  t.equal(limitOf('banking:GET /v1/account'), null);
});

t.test("RateLimit fields an upstream sends are kept after the gateway's (both are lists)", async (t) => {
  const ours = { 'ratelimit-policy': '"gw";q=3;w=60', ratelimit: '"gw";r=2;t=20' };
  const raw = (...fields: string[]) => fields.map((field) => Buffer.from(field, 'latin1'));
  t.same(downstreamHeaderList(raw('Content-Type', 'application/json'), ours), [
    'content-type',
    'application/json',
    'ratelimit-policy',
    ours['ratelimit-policy'],
    'ratelimit',
    ours.ratelimit,
  ]);
  t.same(downstreamHeaderList(raw('RateLimit', '"app";r=5;t=1', 'RateLimit-Policy', '"app";q=9;w=1'), ours), [
    'ratelimit-policy',
    '"gw";q=3;w=60, "app";q=9;w=1',
    'ratelimit',
    '"gw";r=2;t=20, "app";r=5;t=1',
  ]);
  t.same(downstreamHeaderList(raw('ratelimit', '"app";r=5'), undefined), ['ratelimit', '"app";r=5'], 'an unlimited route passes them through');
});
