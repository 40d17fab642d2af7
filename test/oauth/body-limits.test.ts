// The token, revoke and introspect forms take a few kilobytes (GATEWAY_OAUTH_MAX_BODY_BYTES), not a
// banking body: a large form is refused before it is parsed. The admin API has its own limit. A
// form that never finishes arriving is cut by the request timeout.
import t from 'tap';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { listen, partialRequest, requestHead } from '../helpers/http.js';

let tg: TestGateway;
let publicPort: number;
let adminPort: number;

t.before(async () => {
  tg = await startTestGateway(t, { config: { request_timeout_ms: 2000, headers_timeout_ms: 2000 } });
  ({ publicPort, adminPort } = await listen(tg));
});

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

t.test('OAuth forms over the limit get 413 in the OAuth error style, unparsed', async (t) => {
  const manyFields = Array.from({ length: 30_000 }, (_, i) => `f${i}=x`).join('&');
  t.ok(manyFields.length > 200_000, 'a 250 kB form of 30,000 fields');
  for (const url of ['/v1/oauth/token', '/v1/oauth/revoke', '/v1/oauth/introspect']) {
    for (const payload of [manyFields, `client_id=x&client_secret=${'s'.repeat(9000)}`]) {
      const response = await tg.gateway.publicApp.inject({ method: 'POST', url, headers: FORM, payload });
      t.equal(response.statusCode, 413, `${url}: ${response.body}`);
      const body = response.json<Record<string, string>>();
      t.equal(body.error, 'body_too_large', url);
      t.equal(body.error_description, body.message, `${url}: the OAuth body style`);
      t.ok(body.request_id, `${url}: request_id`);
      t.equal(response.headers['cache-control'], 'no-store');
    }
  }
});

t.test('a form within the limit is still parsed and answered', async (t) => {
  const response = await tg.gateway.publicApp.inject({
    method: 'POST',
    url: '/v1/oauth/token',
    headers: FORM,
    payload: `client_id=00000000-0000-4000-8000-000000000000&client_secret=${'s'.repeat(7000)}`,
  });
  t.equal(response.statusCode, 401, response.body);
  t.equal(response.json<{ error: string }>().error, 'auth_error');
});

t.test('a chunked form over the limit gets 413 and the connection is closed', async (t) => {
  const head = requestHead('POST', '/v1/oauth/token', { host: '127.0.0.1', ...FORM, 'transfer-encoding': 'chunked' });
  const exchange = partialRequest(publicPort, head, '', 5000);
  const chunk = `client_secret=${'s'.repeat(4000)}&`;
  for (let i = 0; i < 4; i++) exchange.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
  const response = await exchange.response;
  t.equal(response.status, 413, response.body);
  t.equal(JSON.parse(response.body).error, 'body_too_large');
  t.equal(response.headers.connection, 'close');
});

t.test('a declared length over the limit is refused before the body arrives', async (t) => {
  const head = requestHead('POST', '/v1/oauth/token', { host: '127.0.0.1', ...FORM, 'content-length': '1048576' });
  const exchange = partialRequest(publicPort, head, 'client_id=', 3000);
  const response = await exchange.response;
  t.equal(response.status, 413, response.body);
  t.ok(response.closedAfterMs < 1500, `answered in ${response.closedAfterMs} ms, without waiting for the megabyte`);
});

t.test('a token request that stalls is cut by the request timeout', async (t) => {
  const form = 'client_id=00000000-0000-4000-8000-000000000000&client_secret=abc';
  const head = requestHead('POST', '/v1/oauth/token', { host: '127.0.0.1', ...FORM, 'content-length': String(form.length) });
  const exchange = partialRequest(publicPort, head, form.slice(0, -1), 6000);
  const response = await exchange.response;
  t.equal(response.status, 408, response.body);
  const body = JSON.parse(response.body) as Record<string, string>;
  t.same(Object.keys(body).sort(), ['error', 'message', 'request_id']);
  t.equal(body.error, 'request_timeout');
  t.ok(response.closedAfterMs >= 1500 && response.closedAfterMs < 5000, `closed after ${response.closedAfterMs} ms (timeout 2000 ms)`);
});

t.test('the admin API has its own body limit', async (t) => {
  const response = await tg.gateway.adminApp.inject({
    method: 'POST',
    url: '/admin/v1/clients',
    headers: { authorization: `Bearer ${tg.adminToken}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ name: 'x'.repeat(70_000), scopes: ['sales'] }),
  });
  t.equal(response.statusCode, 413, response.body);
  t.equal(response.json<{ error: string }>().error, 'body_too_large');
  const head = requestHead('POST', '/admin/v1/clients', {
    host: '127.0.0.1',
    authorization: `Bearer ${tg.adminToken}`,
    'content-type': 'application/json',
    'content-length': String(10 * 1024 * 1024),
  });
  const exchange = partialRequest(adminPort, head, '{"name":', 3000);
  const refused = await exchange.response;
  t.equal(refused.status, 413, 'a declared 10 MiB admin body is refused before it arrives');
  t.equal(refused.headers.connection, 'close');
});
