// Changing what a credential may do without a new Access ID or client: PATCH a service account's
// permissions, allowed addresses, expiry and description, and a client's scopes and name. Each is
// validated as at creation (a 400 naming the field), audited, and effective at once on every
// instance: two gateways share Redis, the change goes through one, the other refuses the very next
// request, also one carrying a token issued before the change.
import t from 'tap';
import { startTestGateway } from '../helpers/gateway.js';
import { accessToken, createClient } from '../helpers/oauth.js';
import { adminInject, createServiceAccount, signedInject } from '../helpers/signing.js';

t.test('a service account: permissions, allowed addresses, expiry and description change; the next request sees them everywhere', async (t) => {
  const first = await startTestGateway(t);
  const second = await startTestGateway(t, { redisPrefix: first.redisPrefix! });
  const sa = await createServiceAccount(first, { permissions: ['view_balance', 'view_transactions'] });
  const patch = (payload: Record<string, unknown>) => adminInject(first, { method: 'PATCH', url: `/admin/v1/service-accounts/${sa.account.id}`, payload });
  // Warm the second instance's copy of the account: the change must not wait for it to expire.
  t.equal((await signedInject(second, sa, { method: 'GET', url: '/v1/transactions' })).statusCode, 200);

  const narrowed = await patch({ permissions: ['view_balance'], description: '  Reporting, read-only  ' });
  t.equal(narrowed.statusCode, 200, narrowed.body);
  t.match(narrowed.json(), {
    permissions: ['view_balance'],
    description: 'Reporting, read-only',
    access_id_hint: sa.account.access_id_hint,
    fingerprint: sa.account.fingerprint,
  });
  const refused = await signedInject(second, sa, { method: 'GET', url: '/v1/transactions' });
  t.equal(refused.statusCode, 403, 'the other instance refuses the permission taken away, at once');
  t.equal(refused.json<{ error: string }>().error, 'permission_denied');
  t.equal((await signedInject(second, sa, { method: 'GET', url: '/v1/balance' })).statusCode, 200, 'the same Access ID and key still work');
  t.match(first.logs.text, /"audit":"credential.updated".*"changed":\["permissions","description"\]/);

  t.equal((await patch({ allowed_ips: ['203.0.113.0/24'] })).statusCode, 200);
  t.equal((await signedInject(second, sa, { method: 'GET', url: '/v1/balance' })).json<{ error: string }>().error, 'ip_not_allowed');
  t.equal((await patch({ allowed_ips: null })).json<{ allowed_ips: string[] }>().allowed_ips.length, 2, 'null: any address again');

  const expiry = '2031-06-30T12:00:00Z';
  t.equal((await patch({ expires_at: expiry })).json<{ expires_at: string }>().expires_at, '2031-06-30T12:00:00.000Z');
  t.equal((await patch({ expires_at: null })).json<{ expires_at: string | null }>().expires_at, null, 'null clears the expiry');

  const cases: Array<[Record<string, unknown>, string, RegExp]> = [
    [{}, 'body', /must give at least one of description, permissions, allowed_ips, expires_at/],
    [{ permissions: ['no_such_permission'] }, 'permissions', /no_such_permission/],
    [{ allowed_ips: ['999.1.1.1'] }, 'allowed_ips', /999\.1\.1\.1/],
    [{ expires_at: '2001-01-01T00:00:00Z' }, 'expires_at', /must be in the future/],
    [{ public_key: 'ssh-ed25519 AAAA' }, 'public_key', /./],
  ];
  for (const [payload, field, message] of cases) {
    const response = await patch(payload);
    t.equal(response.statusCode, 400, `${JSON.stringify(payload)}: ${response.body}`);
    t.match(response.json(), { error: 'validation_error', message }, `names ${field}`);
  }
  t.equal((await adminInject(first, { method: 'PATCH', url: '/admin/v1/service-accounts/sa_nope', payload: { description: 'x' } })).statusCode, 404);
});

t.test('a client: scopes and name change; a scope taken away stops working at once, also in a token issued before', async (t) => {
  const first = await startTestGateway(t);
  const second = await startTestGateway(t, { redisPrefix: first.redisPrefix! });
  const client = await createClient(first, ['sales', 'products']);
  const token = await accessToken(first, client);
  const get = (path: string) => second.gateway.publicApp.inject({ method: 'GET', url: path, headers: { authorization: `Bearer ${token}` } });
  t.equal((await get('/v1/products')).statusCode, 200);

  const patched = await adminInject(first, {
    method: 'PATCH',
    url: `/admin/v1/clients/${client.client_id}`,
    payload: { scopes: ['sales'], name: 'Storefront (sales only)' },
  });
  t.equal(patched.statusCode, 200, patched.body);
  t.match(patched.json(), { scopes: ['sales'], name: 'Storefront (sales only)', client_id: client.client_id });
  const refused = await get('/v1/products');
  t.equal(refused.statusCode, 403, 'the token issued before counts only the scopes the client still holds');
  t.equal(refused.json<{ error: string }>().error, 'insufficient_scope');
  t.equal((await get('/v1/sales')).statusCode, 200);
  t.match(first.logs.text, /"audit":"credential.updated".*"client_id":"[^"]+","changed":\["scopes","name"\]/);

  const unknown = await adminInject(first, { method: 'PATCH', url: `/admin/v1/clients/${client.client_id}`, payload: { scopes: ['nope'] } });
  t.equal(unknown.statusCode, 400);
  t.match(unknown.json(), { error: 'validation_error', field: 'scopes' });
  t.equal(
    (await adminInject(first, { method: 'PATCH', url: `/admin/v1/clients/${client.client_id}`, payload: { resource_server: true } })).statusCode,
    400,
    'only name and scopes',
  );
});
