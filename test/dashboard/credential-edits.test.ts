// Browser: editing credentials in the dashboard. A service account's permissions, allowed IPs and
// expiry change (granting a permission that moves money is asked again, and Cancel there saves
// nothing), keeping its Access ID; a client's scopes shrink, and a token issued before stops
// counting the scope taken away.
import t from 'tap';
import { launchBrowser, newPage, screenshot, signInWithToken, startListeningGateway } from '../helpers/browser.js';
import { accessToken, createClient } from '../helpers/oauth.js';
import { createServiceAccount, signedInject } from '../helpers/signing.js';

t.test('a service account and a client are edited in the dashboard', async (t) => {
  const lg = await startListeningGateway(t);
  const sa = await createServiceAccount(lg, { description: 'Payroll export', permissions: ['view_balance'] });
  const client = await createClient(lg, ['sales', 'products']);
  const token = await accessToken(lg, client);
  const browser = await launchBrowser(t);
  const page = await newPage(t, browser);
  await signInWithToken(page, lg.adminUrl, lg.adminToken);

  await page
    .getByRole('row', { name: /Payroll export/ })
    .getByRole('button', { name: /^Edit/ })
    .click();
  await page.getByRole('heading', { name: 'Edit “Payroll export”' }).waitFor();
  t.ok(await page.getByRole('checkbox', { name: /^View balance/ }).isChecked(), 'the current permissions are checked');
  await page.getByRole('checkbox', { name: /^Create transfers/ }).check();
  await page.getByLabel('Allowed IPs').fill('203.0.113.0/24');
  await screenshot(page, 'service-account-edit');
  await page.getByRole('button', { name: 'Save changes' }).click();
  const dialog = page.getByRole('dialog', { name: 'Grant a permission that moves money?' });
  await dialog.waitFor();
  t.match(await dialog.textContent(), /initiate_payment/);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  t.same((await lg.gateway.store.getServiceAccount(sa.account.id))!.permissions, ['view_balance'], 'Cancel saves nothing');
  await page.getByRole('button', { name: 'Save changes' }).click();
  const [saved] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'PATCH'),
    dialog.getByRole('button', { name: 'Grant and save' }).click(),
  ]);
  t.equal(saved.status(), 200);
  await page
    .getByRole('main')
    .getByText(/“Payroll export” saved/)
    .waitFor();
  const account = (await lg.gateway.store.getServiceAccount(sa.account.id))!;
  t.same(account.permissions, ['view_balance', 'initiate_payment']);
  t.same(account.allowedIps, ['203.0.113.0/24']);
  t.equal(account.accessId, sa.account.access_id, 'the Access ID stays');
  t.equal(
    (await signedInject(lg, sa, { method: 'GET', url: '/v1/balance' })).json<{ error: string }>().error,
    'ip_not_allowed',
    'the new allow-list holds at once',
  );

  await page.getByRole('tab', { name: 'OAuth clients' }).click();
  await page
    .getByRole('row', { name: /test client/ })
    .getByRole('button', { name: /^Edit/ })
    .click();
  await page.getByRole('heading', { name: 'Edit “test client”' }).waitFor();
  await page.getByRole('checkbox', { name: /^Read products/ }).uncheck();
  await page.getByLabel('Name').fill('Storefront');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page
    .getByRole('main')
    .getByText(/“Storefront” saved/)
    .waitFor();
  t.match(await page.getByRole('row', { name: /Storefront/ }).textContent(), /sales/);
  const products = await lg.gateway.publicApp.inject({ method: 'GET', url: '/v1/products', headers: { authorization: `Bearer ${token}` } });
  t.equal(products.statusCode, 403, 'the token issued before no longer counts products');
});
