// Behind a trusted proxy, an X-Forwarded-For hop the gateway has to read but cannot parse as a
// plain IP address is refused with 400 forwarded_for_invalid, on every listener that uses the
// client address: proxied routes, the OAuth endpoints (as invalid_request) and dashboard sign-in.
// Skipping it would make the client look like the proxy itself.
import t from 'tap';
import { startTestGateway } from '../helpers/gateway.js';
import { accessToken, createClient } from '../helpers/oauth.js';
import { createServiceAccount, signedInject } from '../helpers/signing.js';

const PROXY = '192.0.2.10';
const CONFIG = { trusted_proxies: ['192.0.2.0/24'] };
const BAD_HOPS = ['6.6.6.6:443', '[2001:db8::1]:443', 'unknown', 'garbage', '010.1.0.5', '127.1', 'fe80::1%eth0', '_hidden'];

const message = (hop: string) =>
  `X-Forwarded-For entry ${JSON.stringify(hop)} is not a plain IP address (no port, brackets or names); the client address cannot be determined.`;

t.test('signed routes: an unreadable hop is refused, not replaced by the proxy address', async (t) => {
  const tg = await startTestGateway(t, { config: CONFIG });
  // The allow-list holds only the proxy: the finding was that garbage made the client look like it.
  const sa = await createServiceAccount(tg, { permissions: ['view_balance'], allowed_ips: [PROXY] });
  for (const hop of BAD_HOPS) {
    for (const header of [hop, `10.9.9.9, ${hop}`, `${hop}, 192.0.2.11`]) {
      const response = await signedInject(tg, sa, { method: 'GET', url: '/v1/balance', remoteAddress: PROXY, headers: { 'x-forwarded-for': header } });
      t.equal(response.statusCode, 400, `${header}: ${response.body}`);
      const body = response.json();
      t.same(body, { error: 'forwarded_for_invalid', message: message(hop), request_id: body.request_id });
      t.type(body.request_id, 'string');
    }
  }
  t.same(tg.upstreams.banking.received, [], 'nothing reached the upstream');
});

t.test('hops left of the first untrusted one are not read; no or only trusted hops keep the peer chain', async (t) => {
  const tg = await startTestGateway(t, { config: CONFIG });
  const sa = await createServiceAccount(tg, { permissions: ['view_balance'] });
  const forwardedAs = async (header: string | undefined) => {
    const response = await signedInject(tg, sa, {
      method: 'GET',
      url: '/v1/balance',
      remoteAddress: PROXY,
      ...(header === undefined ? {} : { headers: { 'x-forwarded-for': header } }),
    });
    t.equal(response.statusCode, 200, `${header}: ${response.body}`);
    return response.json().headers['x-forwarded-for'] as string;
  };
  t.equal(await forwardedAs('unknown, 6.6.6.6:443, 10.1.0.5'), '10.1.0.5', 'client-written garbage on the left is ignored');
  t.equal(await forwardedAs('garbage, 10.1.0.5, 192.0.2.11'), '10.1.0.5');
  t.equal(await forwardedAs('::ffff:10.1.0.5'), '10.1.0.5', 'an IPv4-mapped hop is its IPv4 address');
  t.equal(await forwardedAs(' 2001:db8::5 '), '2001:db8::5');
  t.equal(await forwardedAs(undefined), PROXY, 'no header: the request comes from the trusted range itself');
  t.equal(await forwardedAs(''), PROXY, 'an empty header is no header');
  t.equal(await forwardedAs('192.0.2.12, 192.0.2.11'), '192.0.2.12', 'only trusted hops: the left-most one');
});

t.test('without trusted proxies the header is never read, so it cannot be refused', async (t) => {
  const tg = await startTestGateway(t);
  const sa = await createServiceAccount(tg, { permissions: ['view_balance'] });
  const response = await signedInject(tg, sa, { method: 'GET', url: '/v1/balance', remoteAddress: '203.0.113.9', headers: { 'x-forwarded-for': 'unknown' } });
  t.equal(response.statusCode, 200, response.body);
  t.equal(response.json().headers['x-forwarded-for'], '203.0.113.9');
});

t.test('bearer routes: the same 400, before the upstream', async (t) => {
  const tg = await startTestGateway(t, { config: CONFIG });
  const token = await accessToken(tg, await createClient(tg, ['sales']));
  const response = await tg.gateway.publicApp.inject({
    url: '/v1/sales/1',
    remoteAddress: PROXY,
    headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': 'unknown' },
  });
  t.equal(response.statusCode, 400, response.body);
  const body = response.json();
  t.same(body, { error: 'forwarded_for_invalid', message: message('unknown'), request_id: body.request_id });
  t.same(tg.upstreams.public.received, []);
});

t.test('OAuth endpoints: invalid_request naming the problem, nothing counted against the proxy', async (t) => {
  const tg = await startTestGateway(t, { config: { ...CONFIG, throttle_max_failures: 1 } });
  const client = await createClient(tg, ['sales']);
  const fields = { client_id: client.client_id, client_secret: client.client_secret };
  const expected = { error: 'invalid_request', message: message('6.6.6.6:443'), error_description: message('6.6.6.6:443') };
  for (const url of ['/v1/oauth/token', '/v1/oauth/revoke', '/v1/oauth/introspect']) {
    const response = await tg.gateway.publicApp.inject({
      method: 'POST',
      url,
      remoteAddress: PROXY,
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '6.6.6.6:443' },
      payload: new URLSearchParams({ ...fields, client_secret: 'wrong', token: 'x' }).toString(),
    });
    t.equal(response.statusCode, 400, `${url}: ${response.body}`);
    t.match(response.json().request_id, /^[0-9a-f-]{36}$/, 'every OAuth error carries request_id');
    t.same(response.json(), { ...expected, request_id: response.json().request_id });
    t.equal(response.headers['cache-control'], 'no-store');
    t.equal(response.headers['pragma'], 'no-cache');
  }
  // The refused attempts counted no failure, least of all against the proxy's own address (one
  // failure is the limit here): the proxy itself still gets a token.
  const fine = await tg.gateway.publicApp.inject({
    method: 'POST',
    url: '/v1/oauth/token',
    remoteAddress: PROXY,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString(),
  });
  t.equal(fine.statusCode, 200, fine.body);
});

t.test('dashboard sign-in: the same 400 before the token is checked', async (t) => {
  const tg = await startTestGateway(t, { config: CONFIG });
  const response = await tg.gateway.adminApp.inject({
    method: 'POST',
    url: '/dashboard/api/sign-in',
    remoteAddress: PROXY,
    headers: { 'content-type': 'application/json', 'x-forwarded-for': '[2001:db8::1]:443' },
    payload: { token: tg.adminToken },
  });
  t.equal(response.statusCode, 400, response.body);
  const body = response.json();
  t.same(body, { error: 'forwarded_for_invalid', message: message('[2001:db8::1]:443'), request_id: body.request_id });
  t.equal(response.headers['set-cookie'], undefined, 'no session');
});
