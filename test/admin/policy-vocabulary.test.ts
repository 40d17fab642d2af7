// The admin API knows the scopes and permissions the policy files declare, and no others:
// GET /admin/v1/policy lists them with their descriptions, credentials are created with declared
// names only (400 naming an undeclared one), and a policy's own names work end to end.
import { generateKeyPairSync } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { sshPublicKeyLine } from '../../gateway/signing/index.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { accessToken } from '../helpers/oauth.js';
import { policyDirWith } from '../helpers/policy-dir.js';
import { adminInject } from '../helpers/signing.js';

const SHIPPED_SCOPES = ['stats', 'products', 'events', 'sales', 'sales_refund', 'financial', 'affiliates', 'webhooks'];
const SHIPPED_PERMISSIONS = [
  'view_balance',
  'view_account_details',
  'view_transactions',
  'list_dict_keys',
  'initiate_payment',
  'cancel_scheduled_payments',
  'refund_transaction',
];
const publicKey = () => sshPublicKeyLine(generateKeyPairSync('ed25519').privateKey, 'k');

function create(tg: TestGateway, kind: 'clients' | 'service-accounts', names: string[]) {
  const payload = kind === 'clients' ? { name: 'crm sync', scopes: names } : { description: 'commission payouts', public_key: publicKey(), permissions: names };
  return adminInject(tg, { method: 'POST', url: `/admin/v1/${kind}`, payload });
}

/** A 400 validation_error on `field`, with this message. */
function refusedWith(t: Test, response: Awaited<ReturnType<typeof adminInject>>, field: string, message: string): void {
  t.equal(response.statusCode, 400, response.body);
  const body = response.json();
  t.same(body, { error: 'validation_error', message: `${field}: ${message}`, request_id: body.request_id, field });
}

t.test('GET /admin/v1/policy shows the routes and the declared scopes and permissions with their descriptions', async (t) => {
  const tg = await startTestGateway(t, { store: 'embedded' });
  const response = await adminInject(tg, { method: 'GET', url: '/admin/v1/policy' });
  t.equal(response.statusCode, 200);
  const policy = response.json();
  t.same(Object.keys(policy).sort(), ['permissions', 'routes', 'scopes']);
  t.equal(policy.routes.length, 19);
  t.same(
    policy.scopes.map((s: { name: string }) => s.name),
    SHIPPED_SCOPES,
  );
  t.same(policy.scopes[3], { name: 'sales', description: 'Read sales' });
  t.same(policy.permissions, [
    { name: 'view_balance', description: 'View balance', moves_money: false },
    { name: 'view_account_details', description: 'View account details', moves_money: false },
    { name: 'view_transactions', description: 'View transactions', moves_money: false },
    { name: 'list_dict_keys', description: 'List PIX keys', moves_money: false },
    { name: 'initiate_payment', description: 'Create transfers', moves_money: true },
    { name: 'cancel_scheduled_payments', description: 'Cancel scheduled payments', moves_money: true },
    { name: 'refund_transaction', description: 'Refund transactions', moves_money: true },
  ]);
});

t.test("a policy's own scopes and permissions: granted, listed, enforced; undeclared ones refused with 400 naming them", async (t) => {
  const dir = policyDirWith(t, {
    'crm.yaml': [
      'upstream: public',
      'auth: bearer',
      'scopes:',
      '  "crm.contacts:read": Read CRM contacts',
      'permissions:',
      '  payout: { description: Pay out commissions, moves_money: true }',
      'routes:',
      '  - { method: GET, path: /crm/contacts, scopes: ["crm.contacts:read"] }',
      '  - { method: POST, path: /crm/payouts, auth: signature, permissions: [payout] }',
      '',
    ].join('\n'),
  });
  const tg = await startTestGateway(t, { store: 'embedded', config: { policies_dir: dir } });
  const policy = (await adminInject(tg, { method: 'GET', url: '/admin/v1/policy' })).json();
  // Files load in name order: banking.yaml, crm.yaml, public.yaml.
  t.same(policy.scopes[0], { name: 'crm.contacts:read', description: 'Read CRM contacts' });
  t.same(policy.permissions.at(-1), { name: 'payout', description: 'Pay out commissions', moves_money: true });

  const client = await create(tg, 'clients', ['crm.contacts:read', 'sales']);
  t.equal(client.statusCode, 201, client.body);
  t.same(client.json().scopes, ['crm.contacts:read', 'sales']);
  const token = await accessToken(tg, client.json(), 'crm.contacts:read');
  const contacts = await tg.gateway.publicApp.inject({ method: 'GET', url: '/crm/contacts', headers: { authorization: `Bearer ${token}` } });
  t.equal(contacts.statusCode, 200, contacts.body);
  t.equal(contacts.json().headers['x-gateway-scopes'], 'crm.contacts:read', 'the upstream sees the declared scope');
  const account = await create(tg, 'service-accounts', ['payout']);
  t.equal(account.statusCode, 201, account.body);
  t.same(account.json().permissions, ['payout']);

  const scopes = ['crm.contacts:read', ...SHIPPED_SCOPES].join(', ');
  refusedWith(t, await create(tg, 'clients', ['crm.contacts:write']), 'scopes', `"crm.contacts:write" is not one of: ${scopes}`);
  refusedWith(t, await create(tg, 'clients', []), 'scopes', `must be a non-empty list drawn from: ${scopes}`);
  const permissions = [...SHIPPED_PERMISSIONS, 'payout'].join(', ');
  refusedWith(t, await create(tg, 'service-accounts', ['view_balance', 'pay_out']), 'permissions', `"pay_out" is not one of: ${permissions}`);
});

t.test('a policy that declares no permissions: no service account can be created, saying why', async (t) => {
  const dir = policyDirWith(t, {});
  rmSync(join(dir, 'banking.yaml'));
  const tg = await startTestGateway(t, { store: 'embedded', config: { policies_dir: dir } });
  refusedWith(t, await create(tg, 'service-accounts', ['view_balance']), 'permissions', 'cannot be granted: the policy declares no permissions');
  refusedWith(t, await create(tg, 'service-accounts', []), 'permissions', 'cannot be granted: the policy declares no permissions');
  t.equal((await create(tg, 'clients', ['sales'])).statusCode, 201, 'clients still can');
  t.same((await adminInject(tg, { method: 'GET', url: '/admin/v1/policy' })).json().permissions, []);
});
