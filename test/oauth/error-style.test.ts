// GATEWAY_OAUTH_ERROR_STYLE: by default a failed client authentication is 401 auth_error (the
// seed's code); with rfc6749 the token, revoke and introspect endpoints answer invalid_client, as
// RFC 6749 section 5.2 names it, with a Basic challenge when the client used Basic. Either way every
// error body of these endpoints carries request_id.
import t, { type Test } from 'tap';
import { settingsFrom } from '../../gateway/config/settings.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { createClient, type CreatedClient } from '../helpers/oauth.js';

const ENDPOINTS = ['/v1/oauth/token', '/v1/oauth/revoke', '/v1/oauth/introspect'];
const FAILED = 'Client authentication failed: the client is invalid.';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function post(tg: TestGateway, url: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return tg.gateway.publicApp.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams(fields).toString(),
  });
}

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

async function expectClientRefused(t: Test, tg: TestGateway, client: CreatedClient, code: string): Promise<void> {
  for (const url of ENDPOINTS) {
    const viaForm = await post(tg, url, { client_id: client.client_id, client_secret: 'wrong', token: 'x' });
    t.equal(viaForm.statusCode, 401, `${url}: ${viaForm.body}`);
    t.same(viaForm.json(), { error: code, message: FAILED, error_description: FAILED, request_id: viaForm.json().request_id }, `${url}: form`);
    t.match(viaForm.json().request_id, UUID);
    t.equal(viaForm.headers['www-authenticate'], undefined, `${url}: no Basic challenge for form authentication`);
    t.equal(viaForm.headers['cache-control'], 'no-store');

    const viaBasic = await post(tg, url, { token: 'x' }, { authorization: basic(client.client_id, 'wrong') });
    t.equal(viaBasic.statusCode, 401, `${url}: ${viaBasic.body}`);
    t.equal(viaBasic.json().error, code, `${url}: Basic`);
    t.equal(viaBasic.headers['www-authenticate'], 'Basic realm="gateway"', `${url}: the Basic challenge`);
  }
}

t.test('the default: auth_error', async (t) => {
  const tg = await startTestGateway(t, { store: 'embedded' });
  t.equal(tg.settings.oauthErrorStyle, 'gateway');
  await expectClientRefused(t, tg, await createClient(tg, ['sales']), 'auth_error');
});

t.test('oauth_error_style: rfc6749 answers invalid_client', async (t) => {
  const tg = await startTestGateway(t, { store: 'embedded', config: { oauth_error_style: 'rfc6749' } });
  const client = await createClient(tg, ['sales']);
  await expectClientRefused(t, tg, client, 'invalid_client');
  const metrics = (await tg.gateway.adminApp.inject({ method: 'GET', url: '/metrics' })).body;
  t.match(metrics, /gateway_auth_failures_total\{scheme="client",reason="invalid_client"\} [1-9]/, 'counted under its code');

  // Other refusals keep their RFC 6749 codes; a good client still gets a token.
  const noGrant = await post(tg, '/v1/oauth/token', { client_id: client.client_id, client_secret: client.client_secret, grant_type: 'password' });
  t.equal(noGrant.json().error, 'unsupported_grant_type');
  t.match(noGrant.json().request_id, UUID);
  const granted = await post(tg, '/v1/oauth/token', { client_id: client.client_id, client_secret: client.client_secret });
  t.equal(granted.statusCode, 200, granted.body);
});

t.test('every token-endpoint error body carries request_id', async (t) => {
  const tg = await startTestGateway(t, { store: 'embedded' });
  const client = await createClient(tg, ['sales']);
  const cases: [string, Promise<Awaited<ReturnType<typeof post>>>][] = [
    ['invalid_request', post(tg, '/v1/oauth/token', {})],
    ['invalid_scope', post(tg, '/v1/oauth/token', { client_id: client.client_id, client_secret: client.client_secret, scope: 'products' })],
    ['unsupported_grant_type', post(tg, '/v1/oauth/token', { client_id: client.client_id, client_secret: client.client_secret, grant_type: 'password' })],
    [
      'invalid_request',
      tg.gateway.publicApp.inject({ method: 'POST', url: '/v1/oauth/token', headers: { 'content-type': 'application/json' }, payload: '{"client_id": 1}' }),
    ],
    ['introspection_not_allowed', post(tg, '/v1/oauth/introspect', { client_id: client.client_id, client_secret: client.client_secret, token: 'x' })],
  ];
  for (const [code, pending] of cases) {
    const response = await pending;
    const body = response.json();
    t.equal(body.error, code, response.body);
    t.match(body.request_id, UUID, `${code}: request_id`);
    t.equal(body.error_description, body.message);
  }
});

t.test('the setting is validated at start', async (t) => {
  t.equal(settingsFrom({ oauth_error_style: 'rfc6749' }).oauthErrorStyle, 'rfc6749');
  t.equal(settingsFrom({}, { GATEWAY_OAUTH_ERROR_STYLE: 'gateway' }).oauthErrorStyle, 'gateway');
  t.equal(settingsFrom({ oauth_error_style: 'gateway' }, { GATEWAY_OAUTH_ERROR_STYLE: 'rfc6749' }).oauthErrorStyle, 'rfc6749', 'the environment wins');
  t.throws(() => settingsFrom({}, { GATEWAY_OAUTH_ERROR_STYLE: 'RFC6749' }), {
    name: 'SettingsError',
    message: 'Invalid setting GATEWAY_OAUTH_ERROR_STYLE: must be one of gateway, rfc6749, got "RFC6749"',
  });
  t.throws(
    () => settingsFrom({ oauth_error_style: 'strict' }),
    /^Invalid setting oauth_error_style \(config\) \/ GATEWAY_OAUTH_ERROR_STYLE: must be one of gateway, rfc6749/,
  );
});
