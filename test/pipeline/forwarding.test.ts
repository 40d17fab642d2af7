// What reaches the upstream: exactly the authorized path and query, the body, no inbound credential
// or x-gateway-* header, and identity headers set by the gateway. Sent over real sockets.
import t from 'tap';
import { startTestGateway } from '../helpers/gateway.js';
import { listen, rawRequest } from '../helpers/http.js';
import { accessToken, createClient } from '../helpers/oauth.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

t.test('the forwarded path and query are exactly what was authorized', async (t) => {
  const tg = await startTestGateway(t);
  const { publicPort } = await listen(tg);
  const client = await createClient(tg, ['sales', 'webhooks']);
  const token = await accessToken(tg, client);
  const targets = [
    '/v1/sales/42',
    '/v1/sales/42?x=1',
    '/v1/sales?b=2&a=1&a=3',
    '/v1/sales?q=a+b&slash=%2F&pct=%25&plain=/x',
    '/v1/sales?flag&empty=&=v',
    '/v1/sales?a=1?b=2',
    '/v1/sales?a[b]=1&c=%5B%5D',
    '/v1/sales?x=%ZZ',
  ];
  for (const target of targets) {
    const response = await rawRequest(publicPort, 'GET', target, { Authorization: `Bearer ${token}` });
    t.equal(response.status, 200, `${target}: ${response.body}`);
    t.equal(tg.upstreams.public.received.at(-1)?.url, target, `${target} reached the upstream unchanged`);
  }
  const post = await rawRequest(
    publicPort,
    'POST',
    '/v1/webhooks?dry_run=1',
    { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    '{"url":"https://hooks.example/a"}',
  );
  t.equal(post.status, 200, post.body);
  const received = tg.upstreams.public.received.at(-1);
  t.equal(received?.method, 'POST');
  t.equal(received?.url, '/v1/webhooks?dry_run=1');
  t.equal(received?.body, '{"url":"https://hooks.example/a"}');
  t.equal(received?.headers['content-type'], 'application/json');
});

t.test('credentials and every inbound x-gateway-* header are stripped; identity headers are set', async (t) => {
  const tg = await startTestGateway(t);
  const { publicPort } = await listen(tg);
  const client = await createClient(tg, ['sales'], { account_id: 'acct-42' });
  const token = await accessToken(tg, client);
  const response = await rawRequest(publicPort, 'GET', '/v1/sales/7', {
    Authorization: `Bearer ${token}`,
    'X-Gateway-Client-Id': 'spoofed-client',
    'x-gateway-scopes': 'financial webhooks',
    'X-GATEWAY-ACCOUNT-ID': 'acct-spoofed',
    'x-Gateway-Service-Account-Id': 'sa-spoofed',
    'x-gateway-permissions': 'initiate_payment',
    'X-Gateway-Anything': 'x',
    'X-Request-Id': 'spoofed-request-id',
    'X-Forwarded-For': '203.0.113.9',
    'Proxy-Authorization': 'Basic Zm9vOmJhcg==',
    'X-Custom': 'kept',
  });
  t.equal(response.status, 200, response.body);
  const headers = tg.upstreams.public.received[0]!.headers;
  t.equal(headers.authorization, undefined, 'Authorization is not forwarded');
  t.equal(headers['proxy-authorization'], undefined);
  t.equal(headers['x-gateway-client-id'], client.client_id);
  t.equal(headers['x-gateway-scopes'], 'sales');
  t.equal(headers['x-gateway-account-id'], 'acct-42');
  t.equal(headers['x-gateway-service-account-id'], undefined);
  t.equal(headers['x-gateway-permissions'], undefined);
  t.equal(headers['x-gateway-anything'], undefined);
  t.match(headers['x-request-id'], UUID);
  t.not(headers['x-request-id'], 'spoofed-request-id');
  t.equal(headers['x-forwarded-for'], '127.0.0.1', 'the untrusted X-Forwarded-For is replaced by the socket address');
  t.equal(headers['x-custom'], 'kept', 'other headers pass');
});

t.test('no x-gateway-account-id for a client without account_id, even when one is sent', async (t) => {
  const tg = await startTestGateway(t);
  const client = await createClient(tg, ['sales']);
  const token = await accessToken(tg, client);
  const response = await tg.gateway.publicApp.inject({
    method: 'GET',
    url: '/v1/sales',
    headers: { authorization: `Bearer ${token}`, 'x-gateway-account-id': 'acct-spoofed', 'x-gateway-client-id': 'spoofed' },
  });
  t.equal(response.statusCode, 200);
  const headers = tg.upstreams.public.received[0]!.headers;
  t.equal(headers['x-gateway-account-id'], undefined);
  t.equal(headers['x-gateway-client-id'], client.client_id);
});

t.test('repeated spoofed headers and Connection tricks cannot remove or replace identity headers', async (t) => {
  const tg = await startTestGateway(t);
  const { publicPort } = await listen(tg);
  const client = await createClient(tg, ['sales'], { account_id: 'acct-7' });
  const token = await accessToken(tg, client);
  const tricks: Array<Record<string, string>> = [
    { Connection: 'x-gateway-client-id' },
    { Connection: 'close, X-Gateway-Client-Id, x-gateway-scopes, x-gateway-account-id, x-request-id' },
    { Connection: 'keep-alive, x-gateway-client-id', 'x-gateway-client-id': 'spoofed' },
    { Connection: 'x-forwarded-for', 'X-Forwarded-For': '198.51.100.1' },
  ];
  for (const extra of tricks) {
    const response = await rawRequest(publicPort, 'GET', '/v1/sales', { Authorization: `Bearer ${token}`, ...extra });
    t.equal(response.status, 200, `${JSON.stringify(extra)}: ${response.body}`);
    const headers = tg.upstreams.public.received.at(-1)!.headers;
    t.equal(headers['x-gateway-client-id'], client.client_id, `${JSON.stringify(extra)}: client id set`);
    t.equal(headers['x-gateway-scopes'], 'sales', `${JSON.stringify(extra)}: scopes set`);
    t.equal(headers['x-gateway-account-id'], 'acct-7', `${JSON.stringify(extra)}: account id set`);
    t.match(headers['x-request-id'], UUID, `${JSON.stringify(extra)}: request id set`);
    t.equal(headers['x-forwarded-for'], '127.0.0.1', `${JSON.stringify(extra)}: client address set`);
    t.equal(headers.authorization, undefined);
  }
  // Two header lines of the same name: neither is forwarded.
  const lines = `GET /v1/sales HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAuthorization: Bearer ${token}\r\nx-gateway-client-id: one\r\nX-Gateway-Client-Id: two\r\nx-gateway-scopes: a\r\nx-gateway-scopes: b\r\n\r\n`;
  const { connect } = await import('node:net');
  const reply = await new Promise<string>((resolve, reject) => {
    const socket = connect(publicPort, '127.0.0.1');
    let text = '';
    socket.on('data', (c: Buffer) => (text += c.toString()));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
    socket.write(lines);
  });
  t.match(reply, /^HTTP\/1\.1 200/);
  const headers = tg.upstreams.public.received.at(-1)!.headers;
  t.equal(headers['x-gateway-client-id'], client.client_id);
  t.equal(headers['x-gateway-scopes'], 'sales');
});

t.test('hop-by-hop headers of the upstream response are not passed to the client', async (t) => {
  const tg = await startTestGateway(t);
  const { publicPort } = await listen(tg);
  const client = await createClient(tg, ['sales']);
  const token = await accessToken(tg, client);
  const response = await rawRequest(publicPort, 'GET', '/v1/sales', { Authorization: `Bearer ${token}` });
  t.equal(response.status, 200);
  t.equal(response.headers['keep-alive'], undefined, "the upstream connection's keep-alive is not the client's");
  t.equal(response.headers.connection, 'close', 'the client asked to close and the gateway honours it');
});
