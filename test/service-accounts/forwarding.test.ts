// What reaches the banking upstream: every route of policies/banking.yaml, exactly the signed body,
// identity headers set by the gateway (never the client's), no signing headers; and last use.
import t from 'tap';
import { startTestGateway } from '../helpers/gateway.js';
import { adminInject, createServiceAccount, signedInject } from '../helpers/signing.js';
import { bankingRequests } from '../helpers/banking-routes.js';

t.test('a request signed by the exported library reaches the upstream through every banking route', async (t) => {
  const tg = await startTestGateway(t);
  const sa = await createServiceAccount(tg, { account_id: 'acct-7' });
  const requests = bankingRequests(tg.gateway.policy.current);
  t.equal(requests.length, 7, 'the seven routes of the shipped banking policy');
  for (const request of requests) {
    const response = await signedInject(tg, sa, {
      method: request.method,
      url: request.url,
      headers: request.headers,
      ...(request.body ? { body: request.body } : {}),
    });
    t.equal(response.statusCode, 200, `${request.method} ${request.url}: ${response.body}`);
    const echoed = response.json();
    t.equal(echoed.method, request.method);
    t.equal(echoed.url, request.url, 'the path and query that were signed');
    t.equal(echoed.body, request.body ?? '', 'exactly the signed body bytes');
  }
  t.equal(tg.upstreams.banking.received.length, requests.length);
});

t.test('identity headers come from the gateway only; credentials stay behind', async (t) => {
  const tg = await startTestGateway(t);
  const sa = await createServiceAccount(tg, { account_id: 'acct-7', permissions: ['initiate_payment', 'view_balance'] });
  const body = '{"amount": 10.5, "to": "é"}';
  const response = await signedInject(tg, sa, {
    method: 'POST',
    url: '/v1/transfers?idempotency=1',
    body,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'x-gateway-account-id': 'acct-evil',
      'x-gateway-service-account-id': 'sa_evil',
      'x-gateway-permissions': 'everything',
      'x-gateway-anything': 'smuggled',
    },
  });
  t.equal(response.statusCode, 200, response.body);
  const received = tg.upstreams.banking.received.at(-1)!;
  t.equal(received.headers['x-gateway-service-account-id'], sa.account.id);
  t.equal(received.headers['x-gateway-account-id'], 'acct-7');
  t.equal(received.headers['x-gateway-permissions'], 'initiate_payment view_balance');
  t.equal(received.headers['x-gateway-anything'], undefined);
  for (const name of ['x-access-id', 'signature', 'signature-input']) t.equal(received.headers[name], undefined, `${name} is not forwarded`);
  t.equal(received.body, body);
  t.equal(received.headers['content-length'], String(Buffer.byteLength(body)));

  const noAccount = await createServiceAccount(tg, { permissions: ['view_balance'] });
  await signedInject(tg, noAccount, { method: 'GET', url: '/v1/balance', headers: { 'x-gateway-account-id': 'acct-evil' } });
  t.equal(tg.upstreams.banking.received.at(-1)!.headers['x-gateway-account-id'], undefined, 'no account id: the header is absent, not the client value');
});

t.test('routes an operator adds with the extra permissions work like the shipped routes', async (t) => {
  const { mkdtempSync, writeFileSync, copyFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  // eslint-disable-next-line @typescript-eslint/unbound-method -- path.join does not use `this`
  const { join } = await import('node:path');
  const { REPO_ROOT } = await import('../helpers/gateway.js');
  const dir = mkdtempSync(join(tmpdir(), 'policies-'));
  copyFileSync(join(REPO_ROOT, 'policies/banking.yaml'), join(dir, 'banking.yaml'));
  writeFileSync(
    join(dir, 'banking-extra.yaml'),
    'upstream: banking\nauth: signature\nroutes:\n  - { method: POST, path: "/v1/scheduled-payments/{id}/cancel", permissions: [cancel_scheduled_payments] }\n  - { method: POST, path: "/v1/refunds", permissions: [refund_transaction] }\n',
  );
  const tg = await startTestGateway(t, { config: { policies_dir: dir } });
  const refunder = await createServiceAccount(tg, { permissions: ['refund_transaction'] });
  const ok = await signedInject(tg, refunder, { method: 'POST', url: '/v1/refunds', body: '{"tx":"1"}', headers: { 'content-type': 'application/json' } });
  t.equal(ok.statusCode, 200, ok.body);
  const denied = await signedInject(tg, refunder, {
    method: 'POST',
    url: '/v1/scheduled-payments/9/cancel',
    body: '{}',
    headers: { 'content-type': 'application/json' },
  });
  t.equal(denied.statusCode, 403);
  t.equal(denied.json().error, 'permission_denied');
  t.equal(denied.json().message, 'This route requires the permission cancel_scheduled_payments.');
});

t.test('last use is recorded in batches, not on every request', async (t) => {
  const tg = await startTestGateway(t);
  const sa = await createServiceAccount(tg, { permissions: ['view_balance'] });
  t.equal(sa.account.last_used_at, null);
  const before = Date.now();
  t.equal((await signedInject(tg, sa, { method: 'GET', url: '/v1/balance', remoteAddress: '203.0.113.5' })).statusCode, 200);
  const immediately = (await adminInject(tg, { method: 'GET', url: `/admin/v1/service-accounts/${sa.account.id}` })).json();
  t.equal(immediately.last_used_at, null, 'no write on the request path');
  // The batch is written every few seconds (usage-recorder.test.ts) and when the gateway stops: stop
  // it, and read the account through a second instance on the same store.
  await tg.gateway.close();
  const other = await startTestGateway(t, { redisPrefix: tg.redisPrefix });
  const later = (await adminInject(other, { method: 'GET', url: `/admin/v1/service-accounts/${sa.account.id}` })).json();
  t.equal(later.last_used_ip, '203.0.113.5');
  t.ok(Date.parse(later.last_used_at) >= before - 1000 && Date.parse(later.last_used_at) <= Date.now(), 'last_used_at is the time of the request');
});
