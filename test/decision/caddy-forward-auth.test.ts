// Real Caddy (Debian's) in front of a real upstream, configured with the documented
// deploy/edge/Caddyfile, asking the gateway's decision listener about every request with
// forward_auth. Allowed requests reach the upstream with the identity headers the decision vouched
// for and nothing a client made up; refusals are answered by Caddy with the gateway's status, code
// and headers, and the upstream never sees the request; a body Caddy cannot measure is refused.
import { readFileSync } from 'node:fs';
import t, { type Test } from 'tap';
import { CLIENT_ROUTING_HEADERS, CONSUMED_CREDENTIAL_HEADERS } from '../../gateway/pipeline/mutate.js';
import { startCaddyWith } from '../helpers/caddy.js';
import { REPO_ROOT, startTestGateway } from '../helpers/gateway.js';
import { listen } from '../helpers/http.js';
import { accessToken, createClient } from '../helpers/oauth.js';
import { createServiceAccount } from '../helpers/signing.js';
import { DELEGATED_ROUTE, decisionConfig } from './decision-policies.js';
import { lastReceived, PROTOCOLS, refused, signed, type Edge } from './edge.js';
import { send, sendH2 } from './send.js';

async function startEdge(t: Test): Promise<Edge> {
  const tg = await startTestGateway(t, { config: decisionConfig(t) });
  const { decisionPort } = await listen(tg);
  const api = tg.upstreams.banking;
  const caddy = await startCaddyWith(t, (site) =>
    readFileSync(`${REPO_ROOT}deploy/edge/Caddyfile`, 'utf8')
      .replaceAll('__SITE__', site)
      .replaceAll('__DECISION__', `127.0.0.1:${decisionPort}`)
      .replaceAll('__UPSTREAM__', new URL(api.url).host),
  );
  // Caddy speaks HTTP/1.1 and h2c on the one port.
  return { tg, url: caddy.url, h2Url: caddy.url, api };
}

const IDENTITY_ABSENT_FOR_BEARER = ['x-gateway-service-account-id', 'x-gateway-permissions', 'x-gateway-digest'];

for (const protocol of PROTOCOLS) {
  t.test(`through Caddy forward_auth with the documented configuration, ${protocol.name}`, async (t) => {
    const edge = await startEdge(t);
    const { tg } = edge;
    const exchange = (path: string, method: string, headers: Record<string, string | string[]>, body?: string) =>
      protocol.send(edge, path, method, headers, body);

    t.test('a Bearer GET reaches the upstream with the identity the decision vouched for, nothing else', async (t) => {
      const client = await createClient(tg, ['sales'], { account_id: 'acct-7' });
      const token = await accessToken(tg, client);
      const forged = { 'x-gateway-client-id': 'forged', 'x-gateway-service-account-id': 'forged', x_gateway_permissions: 'initiate_payment' };
      const response = await exchange('/v1/sales?page=2', 'GET', { authorization: `Bearer ${token}`, ...forged });
      t.equal(response.status, 200, response.body);
      const received = lastReceived(edge);
      t.equal(received.url, '/v1/sales?page=2');
      t.equal(received.headers['x-gateway-client-id'], client.client_id, 'the client-sent x-gateway-client-id was replaced');
      t.equal(received.headers['x-gateway-scopes'], 'sales');
      t.equal(received.headers['x-gateway-account-id'], 'acct-7');
      for (const name of IDENTITY_ABSENT_FOR_BEARER) t.equal(received.headers[name], undefined, `${name}: absent, not forged, empty or a placeholder`);
      t.equal(received.headers.x_gateway_permissions, undefined, 'an underscore spelling does not pass');
      t.notOk(received.headers.authorization, 'the consumed credential stays at the edge');
      t.match(received.headers['x-request-id'], /^[0-9a-f-]{36}$/);
    });

    t.test('a signed GET reaches the upstream with the service account the decision vouched for', async (t) => {
      const sa = await createServiceAccount(tg, { permissions: ['view_balance', 'view_transactions'] });
      const response = await exchange('/v1/balance?currency=BRL', 'GET', signed(sa, 'GET', '/v1/balance?currency=BRL'));
      t.equal(response.status, 200, response.body);
      const received = lastReceived(edge);
      t.equal(received.headers['x-gateway-service-account-id'], sa.account.id);
      t.equal(received.headers['x-gateway-permissions'], 'view_balance view_transactions');
      t.equal(received.headers['x-gateway-client-id'], undefined);
      for (const consumed of CONSUMED_CREDENTIAL_HEADERS) t.notOk(received.headers[consumed], `${consumed} stays at the edge`);
    });

    t.test("refusals are the gateway's: status, code, challenge headers", async (t) => {
      const token = await accessToken(tg, await createClient(tg, ['sales']));
      const bad = await refused(t, edge, () => exchange('/v1/sales', 'GET', { authorization: 'Bearer not-a-token' }), 401, 'invalid_token');
      t.match(bad.headers['www-authenticate'], /^Bearer realm="gateway", error="invalid_token"/);
      await refused(t, edge, () => exchange('/v1/stats', 'GET', { authorization: `Bearer ${token}` }), 403, 'insufficient_scope');
      await refused(
        t,
        edge,
        () => exchange('/v1/stats', 'GET', { authorization: `Bearer ${token}`, 'x-forwarded-uri': '/v1/sales', 'x-forwarded-method': 'GET' }),
        403,
        'insufficient_scope',
      );
      await refused(t, edge, () => exchange('/v1/no-such-route', 'GET', { authorization: `Bearer ${token}` }), 404, 'route_not_found');
      const missing = await refused(t, edge, () => exchange('/v1/balance', 'GET', {}), 401, 'signature_missing');
      t.match(missing.headers['accept-signature'], /^sig1=\("@method" "@authority" "@path" "@query" "x-access-id"\)/);
      const sa = await createServiceAccount(tg, { permissions: ['view_balance'] });
      const once = signed(sa, 'GET', '/v1/balance');
      t.equal((await exchange('/v1/balance', 'GET', once)).status, 200);
      await refused(t, edge, () => exchange('/v1/balance', 'GET', once), 401, 'nonce_replayed');
    });

    t.test('a signed body: refused unless its route delegates the digest to the upstream', async (t) => {
      const sa = await createServiceAccount(tg, { permissions: ['initiate_payment'] });
      const body = JSON.stringify({ amount: 1200, to: 'acct-9' });
      await refused(t, edge, () => exchange('/v1/transfers', 'POST', signed(sa, 'POST', '/v1/transfers', body), body), 403, 'body_not_checkable');
      const headers = signed(sa, 'POST', DELEGATED_ROUTE, body);
      const response = await exchange(DELEGATED_ROUTE, 'POST', headers, body);
      t.equal(response.status, 200, response.body);
      const received = lastReceived(edge);
      t.equal(received.headers['x-gateway-digest'], 'upstream');
      t.equal(received.headers['content-digest'], headers['content-digest']);
      t.equal(received.body, body);
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
        'x-custom-client-ip': '10.9.9.9',
        ...overrides,
      });
      t.equal(response.status, 200, response.body);
      const received = lastReceived(edge);
      t.equal(received.method, 'GET');
      for (const name of [...CLIENT_ROUTING_HEADERS, ...CONSUMED_CREDENTIAL_HEADERS, 'x-custom-client-ip'])
        t.equal(received.headers[name], undefined, `${name} does not reach the upstream`);
      t.equal(received.headers['x-forwarded-for'], '127.0.0.1', 'the client address alone, not the hop it wrote');
    });
  });
}

t.test('a body Caddy cannot measure is refused before the decision is asked', async (t) => {
  const edge = await startEdge(t);
  const sa = await createServiceAccount(edge.tg, { permissions: ['view_balance'] });
  const body = JSON.stringify({ amount: 1 });
  const signedGet = signed(sa, 'GET', '/v1/balance');
  // HTTP/1.1 chunked: Go hides the Transfer-Encoding from Caddy's matchers.
  await refused(t, edge, () => send(`${edge.url}/v1/balance`, 'GET', { ...signedGet, 'transfer-encoding': 'chunked' }, body), 411, 'length_required');
  // HTTP/2 DATA frames without a Content-Length.
  await refused(t, edge, () => sendH2(`${edge.h2Url}/v1/balance`, 'GET', signed(sa, 'GET', '/v1/balance'), body, { lengthless: true }), 411, 'length_required');
  // Neither consumed the nonce: the decision was never asked.
  const response = await send(`${edge.url}/v1/balance`, 'GET', signedGet);
  t.equal(response.status, 200, response.body);
  t.equal(lastReceived(edge).body, '');
});
