// Real nginx (Debian's, with auth_request) in front of a real upstream, configured with the
// documented deploy/edge/nginx.conf, asking the gateway's decision listener about every request.
// Allowed requests reach the upstream with the identity headers the decision vouched for; every
// refusal of the proxy's own suites is answered by nginx with the gateway's status and code, and
// the upstream never sees the request.
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import t, { type Test } from 'tap';
import type { EchoUpstream } from '../../gateway/examples/echo-upstream.js';
import { REPO_ROOT, startTestGateway } from '../helpers/gateway.js';
import { freePort } from '../helpers/gateway-process.js';
import { listen } from '../helpers/http.js';
import { startNginxWith } from '../helpers/nginx.js';
import { CLIENT_ROUTING_HEADERS, CONSUMED_CREDENTIAL_HEADERS } from '../../gateway/pipeline/mutate.js';
import { accessToken, createClient } from '../helpers/oauth.js';
import { adminInject, createServiceAccount } from '../helpers/signing.js';
import { DELEGATED_ROUTE, decisionConfig, LIMITED_ROUTE } from './decision-policies.js';
import { lastReceived, PROTOCOLS, refused, signed, type Edge } from './edge.js';
import { send, sendH2 } from './send.js';

/**
 * deploy/edge/nginx.conf with its placeholders replaced (the comments name them too: all of them).
 * The server listens twice: HTTP/1.1 on one port, HTTP/2 (h2c, prior knowledge) on the other.
 */
function edgeConfig(port: number, h2Port: number, decisionPort: number, upstream: EchoUpstream): string {
  return readFileSync(`${REPO_ROOT}deploy/edge/nginx.conf`, 'utf8')
    .replaceAll('listen __LISTEN__;', `listen 127.0.0.1:${port};\n    listen 127.0.0.1:${h2Port} http2;`)
    .replaceAll('__DECISION__', `127.0.0.1:${decisionPort}`)
    .replaceAll('__UPSTREAM__', new URL(upstream.url).host);
}

async function startEdge(t: Test): Promise<Edge> {
  const tg = await startTestGateway(t, { config: decisionConfig(t) });
  const { decisionPort } = await listen(tg);
  // One API behind nginx, as the documented file has: the banking echo server serves every route.
  const api = tg.upstreams.banking;
  const h2Port = await freePort();
  const nginx = await startNginxWith(t, (port) => edgeConfig(port, h2Port, decisionPort!, api));
  return { tg, url: nginx.url, h2Url: `http://127.0.0.1:${h2Port}`, api };
}

for (const protocol of PROTOCOLS) {
  t.test(`through nginx auth_request with the documented configuration, ${protocol.name}`, async (t) => {
    const edge = await startEdge(t);
    const { tg } = edge;
    const exchange = (path: string, method: string, headers: Record<string, string | string[]>, body?: string) =>
      protocol.send(edge, path, method, headers, body);

    t.test('a Bearer GET reaches the upstream with the identity the decision vouched for', async (t) => {
      const client = await createClient(tg, ['sales'], { account_id: 'acct-7' });
      const token = await accessToken(tg, client);
      const forged = { 'x-gateway-client-id': 'forged', 'x-gateway-service-account-id': 'forged', 'x-gateway-permissions': 'initiate_payment' };
      const response = await exchange(`/v1/sales?page=2`, 'GET', { authorization: `Bearer ${token}`, ...forged });
      t.equal(response.status, 200, response.body);
      const received = lastReceived(edge);
      t.equal(received.url, '/v1/sales?page=2');
      t.equal(received.headers['x-gateway-client-id'], client.client_id, 'the client-sent x-gateway-client-id was replaced');
      t.equal(received.headers['x-gateway-scopes'], 'sales');
      t.equal(received.headers['x-gateway-account-id'], 'acct-7');
      t.notOk(received.headers['x-gateway-service-account-id'], 'a header the decision did not set does not pass from the client');
      t.notOk(received.headers['x-gateway-permissions']);
      t.notOk(received.headers['x-gateway-digest']);
      t.notOk(received.headers.authorization, 'the consumed credential stays at the edge');
      t.match(received.headers['x-request-id'], /^[0-9a-f-]{36}$/);
    });

    t.test('a signed GET reaches the upstream with the service account the decision vouched for', async (t) => {
      const sa = await createServiceAccount(tg, { permissions: ['view_balance', 'view_transactions'] });
      const response = await exchange(`/v1/balance?currency=BRL`, 'GET', { ...signed(sa, 'GET', '/v1/balance?currency=BRL'), 'x-gateway-client-id': 'forged' });
      t.equal(response.status, 200, response.body);
      const received = lastReceived(edge);
      t.equal(received.url, '/v1/balance?currency=BRL');
      t.equal(received.headers['x-gateway-service-account-id'], sa.account.id);
      t.equal(received.headers['x-gateway-permissions'], 'view_balance view_transactions');
      t.notOk(received.headers['x-gateway-client-id'], 'a header the decision did not set does not pass from the client');
      for (const consumed of ['x-access-id', 'signature', 'signature-input']) t.notOk(received.headers[consumed], `${consumed} stays at the edge`);
    });

    t.test('Bearer refusals', async (t) => {
      const client = await createClient(tg, ['sales']);
      const token = await accessToken(tg, client);
      const bad = await refused(t, edge, () => exchange(`/v1/sales`, 'GET', { authorization: 'Bearer not-a-token' }), 401, 'invalid_token');
      // Exactly once: auth_request copies it, and the configuration must not add it again.
      t.match(bad.headers['www-authenticate'], /^Bearer realm="gateway", error="invalid_token"/);
      t.equal(bad.headers['www-authenticate']?.split('Bearer ').length, 2, 'WWW-Authenticate is sent once');
      const scope = await refused(t, edge, () => exchange(`/v1/stats`, 'GET', { authorization: `Bearer ${token}` }), 403, 'insufficient_scope');
      t.equal(scope.headers['www-authenticate'], 'Bearer realm="gateway", error="insufficient_scope", scope="stats"');
      // The original request line is nginx's to state: a client's own X-Original-* headers are not read.
      await refused(
        t,
        edge,
        () => exchange(`/v1/stats`, 'GET', { authorization: `Bearer ${token}`, 'x-original-uri': '/v1/sales', 'x-original-method': 'GET' }),
        403,
        'insufficient_scope',
      );
      await refused(t, edge, () => exchange(`/v1/no-such-route`, 'GET', { authorization: `Bearer ${token}` }), 403, 'route_not_found');
      // The refusals behind nginx count where the alerts and dashboards look.
      const metrics = (await tg.gateway.adminApp.inject({ method: 'GET', url: '/metrics' })).body;
      t.match(metrics, 'gateway_auth_failures_total{scheme="bearer",reason="invalid_token"} 1');
      t.match(metrics, 'gateway_auth_failures_total{scheme="bearer",reason="insufficient_scope"} 2');
      t.match(metrics, 'gateway_decision_duration_seconds_count{convention="nginx",outcome="insufficient_scope"} 2');
    });

    t.test('a rate limit: its fields on the answer, then 403 rate_limited with Retry-After', async (t) => {
      const token = await accessToken(tg, await createClient(tg, ['sales']));
      const first = await exchange(`${LIMITED_ROUTE}`, 'GET', { authorization: `Bearer ${token}` });
      t.equal(first.status, 200, first.body);
      t.match(first.headers.ratelimit, /;r=0;t=\d+$/, "the decision's RateLimit field is added to the upstream's answer");
      t.ok(first.headers['ratelimit-policy']);
      // nginx passes only 401 and 403 from auth_request: the 429 comes as 403 with its code.
      const limited = await refused(t, edge, () => exchange(`${LIMITED_ROUTE}`, 'GET', { authorization: `Bearer ${token}` }), 403, 'rate_limited');
      t.match(limited.headers['retry-after'], /^\d+$/);
      t.ok(limited.headers.ratelimit);
    });

    t.test('signature refusals', async (t) => {
      const sa = await createServiceAccount(tg, { permissions: ['view_balance'] });
      const missing = await refused(t, edge, () => exchange(`/v1/balance`, 'GET', {}), 401, 'signature_missing');
      t.match(missing.headers['accept-signature'], /^sig1=\("@method" "@authority" "@path" "@query" "x-access-id"\);created;nonce/);

      const stranger = { ...sa, account: { ...sa.account, access_id: randomUUID() } };
      await refused(t, edge, () => exchange(`/v1/balance`, 'GET', signed(stranger, 'GET', '/v1/balance')), 401, 'unknown_access_id');

      const once = signed(sa, 'GET', '/v1/balance');
      t.equal((await exchange(`/v1/balance`, 'GET', once)).status, 200, 'the first use of a nonce passes');
      await refused(t, edge, () => exchange(`/v1/balance`, 'GET', once), 401, 'nonce_replayed');

      // nginx puts the client's address (127.0.0.1 here) in X-Forwarded-For.
      const elsewhere = await createServiceAccount(tg, { permissions: ['view_balance'], allowed_ips: ['10.0.0.0/8'] });
      await refused(t, edge, () => exchange(`/v1/balance`, 'GET', signed(elsewhere, 'GET', '/v1/balance')), 403, 'ip_not_allowed');

      await refused(t, edge, () => exchange(`/v1/transactions`, 'GET', signed(sa, 'GET', '/v1/transactions')), 403, 'permission_denied');

      const doomed = await createServiceAccount(tg, { permissions: ['view_balance'] });
      t.equal((await exchange(`/v1/balance`, 'GET', signed(doomed, 'GET', '/v1/balance'))).status, 200, 'allowed before its deletion');
      t.equal((await adminInject(tg, { method: 'DELETE', url: `/admin/v1/service-accounts/${doomed.account.id}` })).statusCode, 204);
      await refused(t, edge, () => exchange(`/v1/balance`, 'GET', signed(doomed, 'GET', '/v1/balance')), 401, 'unknown_access_id');
    });

    t.test('a signed POST: refused unless its route delegates the digest to the upstream', async (t) => {
      const sa = await createServiceAccount(tg, { permissions: ['initiate_payment'] });
      const body = JSON.stringify({ amount: 1200, to: 'acct-9' });
      // nginx reads and discards the refused request's body itself; the upstream sees nothing.
      await refused(t, edge, () => exchange(`/v1/transfers`, 'POST', signed(sa, 'POST', '/v1/transfers', body), body), 403, 'body_not_checkable');

      // A body on a GET route: nginx states its length in X-Original-Content-Length, so the gateway
      // knows a body came that it cannot check.
      const reader = await createServiceAccount(tg, { permissions: ['view_balance'] });
      await refused(t, edge, () => exchange(`/v1/balance`, 'GET', signed(reader, 'GET', '/v1/balance', body), body), 403, 'body_not_checkable');

      const headers = signed(sa, 'POST', DELEGATED_ROUTE, body);
      const response = await exchange(`${DELEGATED_ROUTE}`, 'POST', headers, body);
      t.equal(response.status, 200, response.body);
      const received = lastReceived(edge);
      t.equal(received.headers['x-gateway-digest'], 'upstream', 'the upstream is told to check the body');
      t.equal(received.headers['content-digest'], headers['content-digest'], 'with the signed Content-Digest to check it against');
      t.equal(received.body, body);
      t.equal(received.headers['x-gateway-service-account-id'], sa.account.id);
      // The decision consumed the nonce: the same signed request cannot pass twice.
      await refused(t, edge, () => exchange(`${DELEGATED_ROUTE}`, 'POST', headers, body), 401, 'nonce_replayed');
    });

    t.test('the upstream gets the proxy header rule: no overrides, no routing claims, X-Forwarded-For the client alone', async (t) => {
      const token = await accessToken(tg, await createClient(tg, ['sales']));
      const overrides = Object.fromEntries(
        CLIENT_ROUTING_HEADERS.map((name) => [name, name === 'forwarded' ? 'for=10.9.9.9' : name.endsWith('-ip') ? '10.9.9.9' : 'DELETE /v1/webhooks/1']),
      );
      const response = await exchange('/v1/sales/1', 'GET', {
        authorization: `Bearer ${token}`,
        'x-forwarded-for': '10.9.9.9',
        'proxy-authorization': 'Basic eDp5',
        ...overrides,
      });
      t.equal(response.status, 200, response.body);
      const received = lastReceived(edge);
      t.equal(received.method, 'GET');
      t.equal(received.url, '/v1/sales/1');
      for (const name of [...CLIENT_ROUTING_HEADERS, ...CONSUMED_CREDENTIAL_HEADERS])
        t.equal(received.headers[name], undefined, `${name} does not reach the upstream`);
      t.equal(received.headers['x-forwarded-for'], '127.0.0.1', 'the client address alone, not the hop it wrote');
      t.equal(received.headers['x-gateway-client-id'] !== undefined, true);
      // A name the rule drops only by pattern, which nginx cannot remove: the decision refuses it.
      for (const name of ['x-custom-client-ip', 'x-forwarded-foo'])
        await refused(t, edge, () => exchange('/v1/sales/1', 'GET', { authorization: `Bearer ${token}`, [name]: '10.9.9.9' }), 403, 'bad_request');
    });

    t.test('a refusal names its request id, for the client to quote', async (t) => {
      const response = await exchange(`/v1/sales`, 'GET', { authorization: 'Bearer not-a-token' });
      t.equal(response.status, 401);
      t.match((JSON.parse(response.body) as { request_id: string }).request_id, /^[0-9a-f-]{36}$/, 'the decision sends x-request-id with its refusal');
    });
  });
}

t.test('bodies nginx cannot see before it asks', async (t) => {
  const edge = await startEdge(t);
  const { tg } = edge;
  const body = JSON.stringify({ amount: 1200, to: 'acct-9' });
  const h2 = (path: string, method: string, headers: Record<string, string | string[]>, sent?: string) =>
    sendH2(`${edge.h2Url}${path}`, method, headers, sent, { lengthless: true });

  t.test('a signed GET with DATA frames and no Content-Length passes without its body', async (t) => {
    const sa = await createServiceAccount(tg, { permissions: ['view_balance'] });
    const response = await h2('/v1/balance', 'GET', signed(sa, 'GET', '/v1/balance'), body);
    t.equal(response.status, 200, response.body);
    const received = lastReceived(edge);
    t.equal(received.url, '/v1/balance');
    t.equal(received.body, '', 'the unsigned body never reaches the upstream');
    t.equal(received.headers['x-gateway-service-account-id'], sa.account.id);
    t.notOk(received.headers['x-gateway-digest']);
  });

  t.test('a signed POST with no Content-Length: its body is unknown to nginx, taken as present, refused', async (t) => {
    const sa = await createServiceAccount(tg, { permissions: ['initiate_payment'] });
    await refused(t, edge, () => h2('/v1/transfers', 'POST', signed(sa, 'POST', '/v1/transfers', body), body), 403, 'body_not_checkable');
    // Signed as if it had no body: refused all the same, for the body the signature does not cover.
    await refused(t, edge, () => h2('/v1/transfers', 'POST', signed(sa, 'POST', '/v1/transfers'), body), 403, 'body_not_checkable');
  });

  t.test('over HTTP/1.1 a chunked body is stated and refused on a GET route', async (t) => {
    const sa = await createServiceAccount(tg, { permissions: ['view_balance'] });
    await refused(
      t,
      edge,
      () => send(`${edge.url}/v1/balance`, 'GET', { ...signed(sa, 'GET', '/v1/balance'), 'transfer-encoding': 'chunked' }, body),
      403,
      'body_not_checkable',
    );
  });

  t.test('on a digest: upstream route the unknown body passes with the check delegated', async (t) => {
    const sa = await createServiceAccount(tg, { permissions: ['initiate_payment'] });
    const headers = signed(sa, 'POST', DELEGATED_ROUTE, body);
    const response = await h2(DELEGATED_ROUTE, 'POST', headers, body);
    t.equal(response.status, 200, response.body);
    const received = lastReceived(edge);
    t.equal(received.headers['x-gateway-digest'], 'upstream');
    t.equal(received.body, body);
  });
});
