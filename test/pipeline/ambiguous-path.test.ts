// Path forms that servers interpret differently are refused with 400 ambiguous_path and never
// reach an upstream. Requests are sent raw over a socket so no client library normalises them.
import t from 'tap';
import { startTestGateway } from '../helpers/gateway.js';
import { listen, rawRequest } from '../helpers/http.js';
import { accessToken, createClient } from '../helpers/oauth.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const AMBIGUOUS: Array<[string, string]> = [
  ['dot-dot segment', '/v1/sales/../stats'],
  ['trailing dot-dot', '/v1/sales/1/..'],
  ['dot segment', '/v1/./sales'],
  ['encoded slash (lower case)', '/v1/sales%2f1'],
  ['encoded slash (upper case)', '/v1/sales/1%2F..%2Fstats'],
  ['encoded backslash', '/v1/sales/1%5c..%5cstats'],
  ['encoded backslash (upper case)', '/v1/sales/1%5C'],
  ['encoded dot', '/v1/sales/%2e%2e/stats'],
  ['encoded dot (upper case)', '/v1/%2E/sales'],
  ['single encoded dot segment', '/v1/sales/%2e'],
  ['backslash', '/v1/sales\\..\\stats'],
  ['double slash', '/v1//sales'],
  ['leading double slash', '//v1/sales'],
  ['trailing slash', '/v1/sales/'],
  ['double encoding', '/v1/sales/%252f'],
  ['double-encoded dot', '/v1/sales/%252e%252e'],
  ['NUL', '/v1/sales/1%00'],
  ['semicolon path parameter', '/v1/sales;jsessionid=abc'],
  ['semicolon in a segment', '/v1/sales/1;x=..'],
  ['malformed percent-encoding', '/v1/sales/%zz'],
  ['truncated percent-encoding', '/v1/sales/1%2'],
  ['percent-encoded invalid UTF-8', '/v1/sales/%ff'],
  ['overlong UTF-8 slash', '/v1/sales/%c0%af'],
  ['absolute-form target', 'http://evil.example/v1/sales'],
];

t.test('ambiguous paths get 400 ambiguous_path and never reach an upstream', async (t) => {
  const tg = await startTestGateway(t);
  const { publicPort } = await listen(tg);
  const client = await createClient(tg, ['sales', 'stats']);
  const token = await accessToken(tg, client);

  for (const [label, target] of AMBIGUOUS) {
    const response = await rawRequest(publicPort, 'GET', target, { Authorization: `Bearer ${token}` });
    t.equal(response.status, 400, `${label}: ${target} -> ${response.status} ${response.body}`);
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(response.body) as Record<string, unknown>;
    } catch {
      t.fail(`${label}: the body is not JSON: ${response.body}`);
    }
    t.equal(body.error, 'ambiguous_path', `${label}: error code`);
    t.same(Object.keys(body).sort(), ['error', 'message', 'request_id'], `${label}: body fields`);
    t.match(body.request_id, UUID, `${label}: request_id`);
    t.match(response.headers['content-type'], 'application/json', `${label}: JSON`);
  }
  t.same(tg.upstreams.public.received, [], 'the public upstream was never contacted');
  t.same(tg.upstreams.banking.received, [], 'the banking upstream was never contacted');

  // The same paths without a token are still refused for the path, before any credential check.
  const response = await rawRequest(publicPort, 'GET', '/v1/sales/../stats');
  t.equal(response.status, 400);
  t.equal((JSON.parse(response.body) as { error: string }).error, 'ambiguous_path');
});

t.test('an unambiguous encoded character is allowed and forwarded as sent', async (t) => {
  const tg = await startTestGateway(t);
  const { publicPort } = await listen(tg);
  const client = await createClient(tg, ['sales']);
  const token = await accessToken(tg, client);
  const response = await rawRequest(publicPort, 'GET', '/v1/sales/caf%C3%A9-%41', { Authorization: `Bearer ${token}` });
  t.equal(response.status, 200, response.body);
  t.equal(tg.upstreams.public.received[0]?.url, '/v1/sales/caf%C3%A9-%41');
});
