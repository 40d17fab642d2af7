// The route schemas check admin API input; a failure is the catalog's 400 validation_error with the
// field and what is wrong with it, for each kind of schema rule, and nothing is written.
import { generateKeyPairSync } from 'node:crypto';
import t, { type Test } from 'tap';
import { sshPublicKeyLine } from '../../gateway/signing/index.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { createClient } from '../helpers/oauth.js';
import { adminInject, createServiceAccount } from '../helpers/signing.js';

const SCOPES = 'stats, products, events, sales, sales_refund, financial, affiliates, webhooks';

async function refused(t: Test, tg: TestGateway, method: 'GET' | 'POST', url: string, payload: unknown, field: string, message: string): Promise<void> {
  const response = await adminInject(tg, { method, url, ...(payload === undefined ? {} : { payload: payload as object }) });
  const name = `${method} ${url} ${JSON.stringify(payload) ?? ''}`;
  t.equal(response.statusCode, 400, `${name}: ${response.body}`);
  const body = response.json();
  t.same(body, { error: 'validation_error', message: `${field}: ${message}`, request_id: body.request_id, field }, name);
  t.match(body.request_id, /^[0-9a-f-]{36}$/);
}

t.test('client bodies: each schema rule names the field', async (t) => {
  const tg = await startTestGateway(t, { store: 'embedded' });
  const good = { name: 'reports', scopes: ['sales'] };
  const cases: Array<[unknown, string, string]> = [
    [null, 'body', 'must be a JSON object'],
    [{ scopes: ['sales'] }, 'name', 'is required and must be non-empty text'],
    [{ ...good, name: '' }, 'name', 'is required and must be non-empty text'],
    [{ ...good, name: ' \t ' }, 'name', 'is required and must be non-empty text'],
    [{ ...good, name: '\u00e9'.repeat(201) }, 'name', 'must be at most 200 characters (got 201)'],
    [{ ...good, name: 'a\u0007b' }, 'name', 'must not contain control characters'],
    [{ ...good, scopes: ['sales', 'root'] }, 'scopes', `"root" is not one of: ${SCOPES}`],
    [{ ...good, scopes: [true] }, 'scopes', `true is not one of: ${SCOPES}`],
    [{ ...good, scopes: {} }, 'scopes', `must be a non-empty list drawn from: ${SCOPES}`],
    [{ ...good, resource_server: 'true' }, 'resource_server', 'must be true or false'],
    [{ ...good, dpop_bound_access_tokens: 'yes' }, 'dpop_bound_access_tokens', 'must be true or false'],
    [
      { ...good, account_id: 'a\u00e7' },
      'account_id',
      'may contain only visible ASCII characters and inner spaces (no line breaks, control or non-ASCII characters, no leading or trailing space): it is sent upstream as the x-gateway-account-id header',
    ],
    [
      { ...good, secret_hash: 'x' },
      'secret_hash',
      'is not a known field (known: name, scopes, account_id, resource_server, token_endpoint_auth_method, jwks, dpop_bound_access_tokens)',
    ],
    [
      { ...good, ['a/b~c']: 1 },
      'a/b~c',
      'is not a known field (known: name, scopes, account_id, resource_server, token_endpoint_auth_method, jwks, dpop_bound_access_tokens)',
    ],
    [
      { ...good, ['']: 1 },
      'body',
      'has a field with an empty name, which is not a known field (known: name, scopes, account_id, resource_server, token_endpoint_auth_method, jwks, dpop_bound_access_tokens)',
    ],
  ];
  for (const [payload, field, message] of cases) await refused(t, tg, 'POST', '/admin/v1/clients', payload, field, message);
  t.same((await adminInject(tg, { method: 'GET', url: '/admin/v1/clients' })).json(), { clients: [], next_cursor: null }, 'nothing was written');
  const nullAccount = await adminInject(tg, { method: 'POST', url: '/admin/v1/clients', payload: { ...good, account_id: null } });
  t.equal(nullAccount.statusCode, 201, 'account_id null means none');
  t.equal(nullAccount.json().account_id, null);
});

t.test('secret roll: grace_seconds is a whole number in range, never coerced; the body may be left out or null', async (t) => {
  const tg = await startTestGateway(t, { store: 'embedded' });
  const client = await createClient(tg, ['sales']);
  const url = `/admin/v1/clients/${client.client_id}/secret`;
  const grace = 'must be a whole number of seconds from 0 to 604800 (7 days)';
  for (const value of [-1, 604_801, 1.5, '60', true]) await refused(t, tg, 'POST', url, { grace_seconds: value }, 'grace_seconds', grace);
  await refused(t, tg, 'POST', url, { grace: 60 }, 'grace', 'is not a known field (known: grace_seconds)');
  await refused(t, tg, 'POST', url, [60], 'body', 'must be a JSON object or null');
  for (const payload of [undefined, null, {}, { grace_seconds: 60 }]) {
    const response = await adminInject(tg, {
      method: 'POST',
      url,
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload), headers: { 'content-type': 'application/json' } }),
    });
    t.equal(response.statusCode, 200, `${JSON.stringify(payload)}: ${response.body}`);
    t.equal(response.json().previous_secret_expires_at === null, payload?.grace_seconds === undefined, `${JSON.stringify(payload)}: grace as given`);
  }
});

t.test('service account bodies: schema rules, then the checks a schema cannot make', async (t) => {
  const tg = await startTestGateway(t, { store: 'embedded' });
  const good = { description: 'payroll', public_key: sshPublicKeyLine(generateKeyPairSync('ed25519').privateKey, 'k'), permissions: ['view_balance'] };
  // 200 emoji are 200 characters (code points), as AJV counts them: accepted, though 400 UTF-16 units.
  const emoji = await adminInject(tg, { method: 'POST', url: '/admin/v1/service-accounts', payload: { ...good, description: '\ud83d\ude00'.repeat(200) } });
  t.equal(emoji.statusCode, 201, emoji.body);
  const more: Array<[unknown, string, string]> = [
    [{ ...good, description: 'a\ud800b' }, 'description', 'contains an unpaired surrogate'],
    [{ ...good, description: '\ud83d\ude00'.repeat(201) }, 'description', 'must be at most 200 characters (got 201)'],
    [
      { ...good, permissions: [] },
      'permissions',
      'must be a non-empty list drawn from: view_balance, view_account_details, view_transactions, list_dict_keys, initiate_payment, cancel_scheduled_payments, refund_transaction',
    ],
    [{ ...good, allowed_ips: Array.from({ length: 101 }, (_, i) => `10.0.0.${i}`) }, 'allowed_ips', 'must have at most 100 entries'],
    [{ ...good, allowed_ips: ['10.0.0.1', null] }, 'allowed_ips', 'null is not a string'],
    [{ ...good, allowed_ips: ['10.0.0.300'] }, 'allowed_ips', '"10.0.0.300" is not a valid IPv4 address (four decimal parts, no leading zeros)'],
    [
      { ...good, expires_at: '2030-02-30T00:00:00Z' },
      'expires_at',
      '"2030-02-30T00:00:00Z" is not a real date and time; must be an RFC 3339 UTC timestamp, e.g. "2030-01-31T17:00:00Z" (or null for no expiry)',
    ],
    [
      { ...good, expires_at: '2030-06-30T23:59:60Z' },
      'expires_at',
      '"2030-06-30T23:59:60Z" is not a real date and time; must be an RFC 3339 UTC timestamp, e.g. "2030-01-31T17:00:00Z" (or null for no expiry)',
    ],
    [
      { ...good, expires_at: '2030-01-01T00:00:00+01:00' },
      'expires_at',
      'must be an RFC 3339 UTC timestamp, e.g. "2030-01-31T17:00:00Z" (or null for no expiry)',
    ],
    [
      { ...good, public_key: ['ssh-ed25519 AAAA'] },
      'public_key',
      'must be an "ssh-ed25519 <base64> [comment]" line, a PEM "-----BEGIN PUBLIC KEY-----" block, or a JWK {"kty":"OKP","crv":"Ed25519","x":"<base64url>"} (as an object or JSON text)',
    ],
  ];
  for (const [payload, field, message] of more) await refused(t, tg, 'POST', '/admin/v1/service-accounts', payload, field, message);
  const listed = (await adminInject(tg, { method: 'GET', url: '/admin/v1/service-accounts' })).json();
  t.equal(listed.service_accounts.length, 1, 'only the valid account was written');

  const sa = await createServiceAccount(tg);
  await refused(t, tg, 'POST', `/admin/v1/service-accounts/${sa.account.id}/keys`, undefined, 'body', 'must be a JSON object');
  await refused(t, tg, 'POST', `/admin/v1/service-accounts/${sa.account.id}/keys`, { public_key: 42 }, 'public_key', more.at(-1)![2]);
});

t.test('list queries: parameters are checked by the schema and never coerced', async (t) => {
  const tg = await startTestGateway(t, { store: 'embedded' });
  const cases: Array<[string, string, string]> = [
    ['/admin/v1/clients?limit=1e3', 'limit', 'must be a whole number from 1 to 1000'],
    ['/admin/v1/clients?limit=01', 'limit', 'must be a whole number from 1 to 1000'],
    ['/admin/v1/clients?limit=', 'limit', 'must be a whole number from 1 to 1000'],
    ['/admin/v1/service-accounts?cursor=a&cursor=b', 'cursor', 'must be given once'],
    ['/admin/v1/clients?access_id=00000000-0000-4000-8000-000000000000', 'access_id', 'is not a known query parameter (known: limit, cursor)'],
    ['/admin/v1/service-accounts?access_id=00000000-0000-4000-8000-00000000000G', 'access_id', 'must be a full Access ID (a UUID)'],
  ];
  for (const [url, field, message] of cases) await refused(t, tg, 'GET', url, undefined, field, message);
  for (const limit of ['1', '999', '1000'])
    t.equal((await adminInject(tg, { method: 'GET', url: `/admin/v1/clients?limit=${limit}` })).statusCode, 200, `limit=${limit}`);
});
