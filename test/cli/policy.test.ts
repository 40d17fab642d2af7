// gatewayctl policy scopes|permissions list what the policy declares, with descriptions and the
// routes needing each name; creating a credential with an undeclared name fails naming it.
import t from 'tap';
import { startTestGateway } from '../helpers/gateway.js';
import { runCli } from '../helpers/cli.js';
import { listen } from '../helpers/http.js';
import { policyDirWith } from '../helpers/policy-dir.js';

const CRM = [
  'upstream: public',
  'auth: bearer',
  'scopes:',
  '  crm.read: Read CRM contacts',
  '  crm.export: { description: Export CRM contacts }',
  'permissions:',
  '  payout: { description: Pay out commissions, moves_money: true }',
  'routes:',
  '  - { method: GET, path: /crm/contacts, scopes: [crm.read] }',
  '  - { method: GET, path: /crm/contacts/export, scopes: [crm.read, crm.export] }',
  '',
].join('\n');

t.test('gatewayctl policy scopes and permissions list the declared vocabulary', async (t) => {
  const tg = await startTestGateway(t, { store: 'embedded', config: { policies_dir: policyDirWith(t, { 'crm.yaml': CRM }) } });
  const env = { GATEWAY_ADMIN_URL: (await listen(tg)).adminUrl, GATEWAY_ADMIN_TOKEN: tg.adminToken };

  const scopes = await runCli(['policy', 'scopes'], env);
  t.equal(scopes.code, 0, scopes.stderr);
  t.match(scopes.stdout, /^NAME\s+DESCRIPTION\s+ROUTES\n/);
  t.match(scopes.stdout, /^crm\.read\s+Read CRM contacts\s+GET \/crm\/contacts, GET \/crm\/contacts\/export$/m);
  t.match(scopes.stdout, /^crm\.export\s+Export CRM contacts\s+GET \/crm\/contacts\/export$/m);
  t.match(scopes.stdout, /^sales\s+Read sales\s+GET \/v1\/sales, GET \/v1\/sales\/\{id\}$/m, 'the shipped scopes too');
  t.equal(scopes.stdout.trim().split('\n').length, 1 + 10, 'a header and one line a scope');

  const json = await runCli(['policy', 'scopes', '--json'], env);
  t.equal(json.code, 0, json.stderr);
  t.same(JSON.parse(json.stdout).slice(0, 2), [
    { name: 'crm.read', description: 'Read CRM contacts' },
    { name: 'crm.export', description: 'Export CRM contacts' },
  ]);

  const permissions = await runCli(['policy', 'permissions'], env);
  t.equal(permissions.code, 0, permissions.stderr);
  t.match(permissions.stdout, /^NAME\s+DESCRIPTION\s+MOVES_MONEY\s+ROUTES\n/);
  t.match(permissions.stdout, /^initiate_payment\s+Create transfers\s+yes\s+POST \/v1\/transfers$/m);
  t.match(permissions.stdout, /^view_balance\s+View balance\s+no\s+GET \/v1\/balance$/m);
  t.match(permissions.stdout, /^payout\s+Pay out commissions\s+yes\s+\(no route\)$/m, 'declared, though no route needs it yet');
  const permissionsJson = JSON.parse((await runCli(['policy', 'permissions', '--json'], env)).stdout);
  t.same(permissionsJson.at(-1), { name: 'payout', description: 'Pay out commissions', moves_money: true });
});

t.test('creating a credential with a declared name works; an undeclared one fails naming it and what is declared', async (t) => {
  const tg = await startTestGateway(t, { store: 'embedded', config: { policies_dir: policyDirWith(t, { 'crm.yaml': CRM }) } });
  const env = { GATEWAY_ADMIN_URL: (await listen(tg)).adminUrl, GATEWAY_ADMIN_TOKEN: tg.adminToken };
  const created = await runCli(['clients', 'create', '--name', 'crm sync', '--scopes', 'crm.read,crm.export', '--json'], env);
  t.equal(created.code, 0, created.stderr);
  t.same(JSON.parse(created.stdout).scopes, ['crm.read', 'crm.export']);

  const typo = await runCli(['clients', 'create', '--name', 'crm sync', '--scopes', 'crm.reads'], env);
  t.equal(typo.code, 1);
  t.equal(typo.stdout, '');
  t.match(typo.stderr, /^gatewayctl: 400 validation_error: scopes: "crm\.reads" is not one of: crm\.read, crm\.export, stats, /);
  const none = await runCli(['clients', 'create', '--name', 'crm sync'], env);
  t.equal(none.code, 1);
  t.match(none.stderr, /scopes: must be a non-empty list drawn from: crm\.read, crm\.export, stats/);
  const help = await runCli(['clients', 'create', '--help']);
  t.match(help.stdout.replace(/\s+/g, ' '), 'the policy declares them (gatewayctl policy scopes)');
});
