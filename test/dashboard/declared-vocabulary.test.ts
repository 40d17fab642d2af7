// Browser: the create forms offer what the policy files declare, with their descriptions: a policy's
// own scope in the OAuth client form, its own permissions in the service account form (marked when
// they move money), and a description written as markup is shown as text.
import { generateKeyPairSync } from 'node:crypto';
import t from 'tap';
import { sshPublicKeyLine } from '../../gateway/signing/index.js';
import { launchBrowser, newPage, screenshot, signInWithToken, startListeningGateway, ARTIFACT_SCREENSHOT_DIR } from '../helpers/browser.js';
import { policyDirWith } from '../helpers/policy-dir.js';

const CRM = [
  'upstream: public',
  'auth: bearer',
  'scopes:',
  '  crm.read: Read CRM contacts',
  '  crm.notes: "Read <b>notes</b> & attachments"',
  'permissions:',
  '  payout: { description: Pay out commissions, moves_money: true }',
  '  statements: Read commission statements',
  'routes:',
  '  - { method: GET, path: /crm/contacts, scopes: [crm.read] }',
  '  - { method: POST, path: /crm/payouts, auth: signature, permissions: [payout] }',
  '',
].join('\n');

t.test("the forms offer the policy's own scopes and permissions with their descriptions", async (t) => {
  const lg = await startListeningGateway(t, { store: 'embedded', config: { policies_dir: policyDirWith(t, { 'crm.yaml': CRM }) } });
  const browser = await launchBrowser(t);
  const page = await newPage(t, browser);
  await signInWithToken(page, lg.adminUrl, lg.adminToken);

  await page.goto(`${lg.adminUrl}/dashboard#oauth-clients`);
  await page.getByRole('link', { name: 'Create OAuth client' }).first().click();
  const crmRead = page.getByRole('checkbox', { name: /^Read CRM contacts crm\.read GET \/crm\/contacts$/ });
  t.equal(await crmRead.count(), 1, 'its description, the scope and the route it opens label the checkbox, as for permissions');
  t.equal(await page.locator('#oc-scopes-crm\\.read-detail').textContent(), 'crm.read' + 'GET /crm/contacts');
  const notes = page.locator('label[for="oc-scopes-crm.notes"]');
  t.equal(await notes.textContent(), 'Read <b>notes</b> & attachments' + 'crm.notes' + 'No route in the current policy', 'a description is text, never markup');
  t.equal(await notes.locator('b').count(), 0);
  t.equal(await page.locator('[data-field="scopes"] .checkbox-option').count(), 10, 'the shipped scopes and the two declared here');
  await screenshot(page, 'declared-scopes', ARTIFACT_SCREENSHOT_DIR);

  await page.getByLabel('Name').fill('CRM sync');
  await crmRead.check();
  const [created] = await Promise.all([page.waitForResponse('**/admin/v1/clients'), page.getByRole('button', { name: 'Create OAuth client' }).click()]);
  t.equal(created.status(), 201);
  t.same((await created.json()).scopes, ['crm.read']);
  await page.getByText('OAuth client created', { exact: true }).waitFor();
  t.match(await page.locator('.alert-success').textContent(), /can now get tokens with the scopes crm\.read\./);

  await page.goto(`${lg.adminUrl}/dashboard#service-accounts`);
  await page.getByRole('link', { name: 'Create service account' }).first().click();
  const payout = page.getByRole('checkbox', { name: /^Pay out commissions/ });
  t.equal(await payout.count(), 1, 'a permission is labelled with its description');
  t.match(await page.locator('label[for="sa-permissions-payout"] .option-title').textContent(), /^Pay out commissionsmoves money$/, 'marked as moving money');
  t.equal(await page.locator('label[for="sa-permissions-statements"] .chip-risk').count(), 0, 'an unmarked permission is not');
  t.match(await page.locator('#sa-permissions-payout-detail').textContent(), /^payoutPOST \/crm\/payouts$/);
  t.equal(await page.locator('[data-field="permissions"] .checkbox-option').count(), 9, 'the shipped permissions and the two declared here');

  await page.getByLabel('Description').fill('Commission payouts');
  await page.getByLabel('Public key').fill(sshPublicKeyLine(generateKeyPairSync('ed25519').privateKey, 'payouts@crm'));
  await payout.check();
  const [account] = await Promise.all([
    page.waitForResponse('**/admin/v1/service-accounts'),
    page.getByRole('button', { name: 'Create service account' }).click(),
  ]);
  t.equal(account.status(), 201);
  await page.getByText('Service account created', { exact: true }).waitFor();
  await page.getByRole('button', { name: 'Done' }).click();
  const row = page.getByRole('row', { name: /Commission payouts/ });
  await row.waitFor();
  t.equal(await row.locator('.chip-risk').textContent(), 'payout', "the list marks the policy's money-moving permission");
});
