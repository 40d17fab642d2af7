// No client secret, access token or admin token appears in any log line, even at trace level,
// across a full flow: create a client, get a token, call through, revoke, introspect, fail logins.
import t from 'tap';
import { startTestGateway } from '../helpers/gateway.js';
import { listen, rawRequest } from '../helpers/http.js';
import { createClient, tokenRequest } from '../helpers/oauth.js';

t.test('a full flow at trace level leaks nothing into the logs', async (t) => {
  const tg = await startTestGateway(t, { config: { log_level: 'trace' } });
  const { publicPort } = await listen(tg);
  const client = await createClient(tg, ['sales']);
  const caller = await createClient(tg, ['stats'], { resource_server: true });
  const guessed = 'guessed-secret-XYZ-0123456789abcdef';

  const issued = await tokenRequest(tg, { client_id: client.client_id, client_secret: client.client_secret });
  t.equal(issued.statusCode, 200);
  const token = issued.json().access_token as string;
  const basic = `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;
  t.equal((await tokenRequest(tg, {}, { authorization: basic })).statusCode, 200);

  const proxied = await rawRequest(publicPort, 'GET', `/v1/sales/1?access_token=${token}&secret=${client.client_secret}`, { Authorization: `Bearer ${token}` });
  t.equal(proxied.status, 200);
  t.equal((await rawRequest(publicPort, 'GET', '/v1/stats', { Authorization: `Bearer ${token}` })).status, 403);
  t.equal((await rawRequest(publicPort, 'GET', '/v1/sales', { Authorization: `Bearer ${token}x` })).status, 401);

  const form = (url: string, fields: Record<string, string>) =>
    tg.gateway.publicApp.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(fields).toString(),
    });
  t.equal((await form('/v1/oauth/introspect', { client_id: caller.client_id, client_secret: caller.client_secret, token })).json().active, true);
  t.equal((await form('/v1/oauth/revoke', { client_id: client.client_id, client_secret: client.client_secret, token })).statusCode, 200);
  t.equal((await form('/v1/oauth/introspect', { client_id: caller.client_id, client_secret: caller.client_secret, token })).json().active, false);

  t.equal((await tokenRequest(tg, { client_id: client.client_id, client_secret: guessed })).statusCode, 401);
  t.equal((await tokenRequest(tg, {}, { authorization: `Basic ${Buffer.from(`${client.client_id}:${guessed}`).toString('base64')}` })).statusCode, 401);
  t.equal((await tokenRequest(tg, { client_id: client.client_id, client_secret: guessed, grant_type: 'password' })).statusCode, 400);
  const badJson = await tg.gateway.publicApp.inject({
    method: 'POST',
    url: '/v1/oauth/token',
    headers: { 'content-type': 'application/json' },
    payload: `{"client_secret":"${guessed}"`,
  });
  t.equal(badJson.statusCode, 400);
  const wrongAdmin = await tg.gateway.adminApp.inject({ method: 'GET', url: '/admin/v1/clients', headers: { authorization: `Bearer ${guessed}` } });
  t.equal(wrongAdmin.statusCode, 401);
  t.equal(
    (
      await tg.gateway.adminApp.inject({
        method: 'DELETE',
        url: `/admin/v1/clients/${client.client_id}`,
        headers: { authorization: `Bearer ${tg.adminToken}` },
      })
    ).statusCode,
    204,
  );

  const logs = tg.logs.text;
  t.ok(tg.logs.lines.length > 20, `${tg.logs.lines.length} log lines captured`);
  t.equal(tg.settings.logLevel, 'trace');
  t.match(logs, '"msg":"request"', 'request lines were written');
  t.match(logs, client.client_id, 'the logs do show who called (client ids are not secret)');
  const secrets: Array<[string, string]> = [
    ['client secret', client.client_secret],
    ['caller secret', caller.client_secret],
    ['access token', token],
    ['token signature', token.split('.')[2]!],
    ['guessed secret', guessed],
    ['admin token', tg.adminToken],
    ['Basic credentials', basic.slice('Basic '.length)],
  ];
  for (const [label, secret] of secrets) {
    t.notOk(logs.includes(secret), `the ${label} appears in no log line`);
  }
});
