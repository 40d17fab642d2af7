// account_id is sent upstream as the x-gateway-account-id header on every request of the
// credential, so it is checked at creation as a header-safe value: visible ASCII and inner spaces,
// 1-200 characters. A value the HTTP client would refuse later (CR/LF, non-Latin-1) made each of
// those requests a 502.
import { generateKeyPairSync } from 'node:crypto';
import t from 'tap';
import { sshPublicKeyLine } from '../../gateway/signing/index.js';
import { startTestGateway } from '../helpers/gateway.js';
import { accessToken, createClient } from '../helpers/oauth.js';
import { adminInject, createServiceAccount, signedInject } from '../helpers/signing.js';

const ALLOWED =
  'account_id: may contain only visible ASCII characters and inner spaces (no line breaks, control or non-ASCII characters, no leading or trailing space): it is sent upstream as the x-gateway-account-id header';

const REFUSED: [unknown, string][] = [
  ['a\r\nb', ALLOWED],
  ['a\nx-injected: 1', ALLOWED],
  ['ação', ALLOWED],
  ['😀', ALLOWED],
  ['tab\there', ALLOWED],
  ['nul\u0000', ALLOWED],
  [' acct-1', ALLOWED],
  ['acct-1 ', ALLOWED],
  ['x'.repeat(201), 'account_id: must be at most 200 characters (got 201)'],
  ['', 'account_id: must be non-empty text'],
  [42, 'account_id: must be non-empty text'],
];

t.test('the admin API refuses account_id values that are not header-safe, for clients and service accounts', async (t) => {
  const tg = await startTestGateway(t);
  const publicKey = sshPublicKeyLine(generateKeyPairSync('ed25519').privateKey, 'k');
  const creations = [
    { url: '/admin/v1/clients', payload: { name: 'c', scopes: ['sales'] } },
    { url: '/admin/v1/service-accounts', payload: { description: 'd', public_key: publicKey, permissions: ['view_balance'] } },
  ];
  for (const { url, payload } of creations) {
    for (const [accountId, message] of REFUSED) {
      const response = await adminInject(tg, { method: 'POST', url, payload: { ...payload, account_id: accountId } });
      t.equal(response.statusCode, 400, `${url} ${JSON.stringify(accountId)}: ${response.body}`);
      const body = response.json();
      t.same(body, { error: 'validation_error', message, request_id: body.request_id, field: 'account_id' });
    }
  }
  t.same((await adminInject(tg, { method: 'GET', url: '/admin/v1/clients' })).json().clients, [], 'no client was written');
  t.same((await adminInject(tg, { method: 'GET', url: '/admin/v1/service-accounts' })).json().service_accounts, [], 'no service account was written');
});

t.test('a valid account_id is kept exactly and reaches the upstream in x-gateway-account-id', async (t) => {
  const tg = await startTestGateway(t);
  for (const accountId of ['acct-42', 'Tenant 7 / EU', '~!@#$%^&*()_+{}|:"<>?`-=[]\\;\',./', 'x'.repeat(200)]) {
    const client = await createClient(tg, ['sales'], { account_id: accountId });
    t.equal(client.account_id, accountId);
    const token = await accessToken(tg, client);
    const bearer = await tg.gateway.publicApp.inject({ url: '/v1/sales/1', headers: { authorization: `Bearer ${token}` } });
    t.equal(bearer.statusCode, 200, bearer.body);
    t.equal(bearer.json().headers['x-gateway-account-id'], accountId, `client ${JSON.stringify(accountId)}`);

    const sa = await createServiceAccount(tg, { permissions: ['view_balance'], account_id: accountId });
    t.equal(sa.account.account_id, accountId);
    const signed = await signedInject(tg, sa, { method: 'GET', url: '/v1/balance' });
    t.equal(signed.statusCode, 200, signed.body);
    t.equal(signed.json().headers['x-gateway-account-id'], accountId, `service account ${JSON.stringify(accountId)}`);
  }
});
