// Browser: credential lifecycle in the dashboard. A service account created with an expiry shows
// it; its key is rotated (add a second key, remove the first, checked through the admin API, with
// the 409s shown at the field); an OAuth client's secret is rolled (the new secret gets a token, the
// old one is refused after a zero grace, kept after a grace period); and the new views fit 375 px.
import { generateKeyPairSync } from 'node:crypto';
import type { Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { sshPublicKeyLine } from '../../gateway/signing/index.js';
import {
  ARTIFACT_SCREENSHOT_DIR,
  launchBrowser,
  newPage,
  PHONE,
  screenshot,
  signInWithToken,
  startListeningGateway,
  type ListeningGateway,
} from '../helpers/browser.js';
import { elementsPastRightEdge, pageWidth, spillingOut } from '../helpers/layout.js';
import { createClient, tokenRequest } from '../helpers/oauth.js';

function newKeyLine(comment: string): string {
  return sshPublicKeyLine(generateKeyPairSync('ed25519').privateKey, comment);
}

async function adminGet(t: Test, lg: ListeningGateway, url: string): Promise<Record<string, any>> {
  const response = await lg.gateway.adminApp.inject({ method: 'GET', url, headers: { authorization: `Bearer ${lg.adminToken}` } });
  t.equal(response.statusCode, 200, `GET ${url}`);
  return response.json<Record<string, any>>();
}

async function fits(t: Test, page: Page, name: string): Promise<void> {
  const viewport = page.viewportSize()!.width;
  const width = await pageWidth(page);
  t.ok(width <= viewport, `${name}: the page is ${width} px wide on a ${viewport} px screen`, { pastRightEdge: await elementsPastRightEdge(page) });
  t.same(await spillingOut(page, '.card'), [], `${name}: nothing spills out of the cards`);
  await screenshot(page, `phone-${name}`, ARTIFACT_SCREENSHOT_DIR);
}

t.test('a service account is created with an expiry and its key is rotated in the dashboard', async (t) => {
  const lg = await startListeningGateway(t);
  const browser = await launchBrowser(t);
  const page = await newPage(t, browser);
  await signInWithToken(page, lg.adminUrl, lg.adminToken);

  const firstKey = newKeyLine('payroll-1');
  await page.getByRole('link', { name: 'Create service account' }).first().click();
  await page.getByLabel('Description').fill('Payroll export');
  await page.getByLabel('Public key').fill(firstKey);
  await page.getByRole('checkbox', { name: /View balance/ }).check();

  // A moment in the past: the server's 400 is shown at the expiry field.
  await page.getByLabel('Expires').fill('2020-01-31T17:00');
  const [refused] = await Promise.all([
    page.waitForResponse('**/admin/v1/service-accounts'),
    page.getByRole('button', { name: 'Create service account' }).click(),
  ]);
  t.equal(refused.status(), 400);
  t.equal((await refused.json()).field, 'expires_at');
  const expiryError = page.locator('[data-field="expires_at"] .field-error');
  await expiryError.waitFor();
  t.match(await expiryError.textContent(), /^Expires must be in the future/);
  t.equal(await page.getByLabel('Expires').getAttribute('aria-invalid'), 'true');

  await page.getByLabel('Expires').fill('2030-01-31T17:00');
  const [created] = await Promise.all([
    page.waitForResponse('**/admin/v1/service-accounts'),
    page.getByRole('button', { name: 'Create service account' }).click(),
  ]);
  t.equal(created.status(), 201);
  t.equal(created.request().postDataJSON().expires_at, '2030-01-31T17:00:00Z', 'sent as RFC 3339 UTC (the browser is in UTC)');
  const account = (await created.json()) as { id: string; fingerprint: string; expires_at: string };
  t.equal(new Date(account.expires_at).toISOString(), '2030-01-31T17:00:00.000Z');
  await page.getByText('Service account created', { exact: true }).waitFor();
  await page.getByRole('button', { name: 'Done' }).click();

  const row = page.getByRole('row', { name: /Payroll export/ });
  await row.waitFor();
  t.match(await row.locator('td[data-label="Created"] .cell-expiry').textContent(), /^Expires 31 Jan 2030, 17:00$/, 'the list shows the expiry');
  await screenshot(page, 'service-accounts-expiry', ARTIFACT_SCREENSHOT_DIR);

  // A second account without expiry says so.
  const other = await lg.gateway.adminApp.inject({
    method: 'POST',
    url: '/admin/v1/service-accounts',
    headers: { authorization: `Bearer ${lg.adminToken}` },
    payload: { description: 'Reporting', public_key: newKeyLine('reporting'), permissions: ['view_balance'] },
  });
  t.equal(other.statusCode, 201);
  await page.reload();
  const otherRow = page.getByRole('row', { name: /Reporting/ });
  await otherRow.waitFor();
  t.equal(await otherRow.locator('td[data-label="Created"] .cell-expiry').textContent(), 'Never expires');

  // Keys: one key, no Remove.
  await page
    .getByRole('row', { name: /Payroll export/ })
    .getByRole('button', { name: /^Keys/ })
    .click();
  await page.getByRole('heading', { name: 'Keys of “Payroll export”' }).waitFor();
  t.equal(await page.locator('.key-item').count(), 1);
  t.equal(await page.getByRole('button', { name: /^Remove/ }).count(), 0, 'no Remove for the only key');
  t.match(await page.locator('#sa-keys-expires').textContent(), /31 Jan 2030/);

  const keyField = page.getByLabel('New public key');
  const keyError = page.locator('[data-field="public_key"] .field-error');
  // The same key again: 409 service_account_key_exists, at the field.
  await keyField.fill(firstKey);
  const [exists] = await Promise.all([
    page.waitForResponse(`**/admin/v1/service-accounts/${account.id}/keys`),
    page.getByRole('button', { name: 'Add key' }).click(),
  ]);
  t.equal(exists.status(), 409);
  t.equal((await exists.json()).error, 'service_account_key_exists');
  await keyError.waitFor();
  t.match(await keyError.textContent(), /already holds the key/);

  const secondKey = newKeyLine('payroll-2');
  await keyField.fill(secondKey);
  const [added] = await Promise.all([
    page.waitForResponse(`**/admin/v1/service-accounts/${account.id}/keys`),
    page.getByRole('button', { name: 'Add key' }).click(),
  ]);
  t.equal(added.status(), 201);
  // The notice in the page, not its copy in the screen-reader announcer (outside <main>, filled 50 ms
  // later): one text, two elements, once the announcement is made.
  await page
    .getByRole('main')
    .getByText(/added\. Both keys now verify signatures/)
    .waitFor();
  const announcer = page.locator('#announcer');
  await announcer.getByText(/added\. Both keys now verify signatures/).waitFor({ state: 'attached' });
  t.match(await announcer.textContent(), /^Key \S+ added\. Both keys now verify signatures/, 'screen readers are told too');
  t.equal(await page.locator('.key-item').count(), 2);
  t.match(
    await page.locator('.key-item').nth(1).textContent(),
    /payroll-2Added .*Not used since it was added/,
    "the key's comment, and that it is not in use yet",
  );
  const afterAdd = await adminGet(t, lg, `/admin/v1/service-accounts/${account.id}`);
  const fingerprints = (afterAdd.public_keys as { fingerprint: string }[]).map((k) => k.fingerprint);
  t.equal(fingerprints.length, 2);
  t.equal(fingerprints[0], account.fingerprint);
  const secondFingerprint = fingerprints[1]!;

  // A third: 409 service_account_key_limit, at the field.
  await page.getByLabel('New public key').fill(newKeyLine('payroll-3'));
  const [limit] = await Promise.all([
    page.waitForResponse(`**/admin/v1/service-accounts/${account.id}/keys`),
    page.getByRole('button', { name: 'Add key' }).click(),
  ]);
  t.equal(limit.status(), 409);
  t.equal((await limit.json()).error, 'service_account_key_limit');
  await keyError.waitFor();
  t.match(await keyError.textContent(), /already holds two public keys/);
  await screenshot(page, 'service-account-keys', ARTIFACT_SCREENSHOT_DIR);

  // Remove the first key: asked first; Cancel keeps it.
  const removeFirst = page.getByRole('button', { name: `Remove key ${account.fingerprint}` });
  await removeFirst.click();
  const dialog = page.getByRole('dialog', { name: 'Remove key?' });
  await dialog.waitFor();
  t.match(await dialog.textContent(), /rejected/);
  t.match(await dialog.textContent(), /The other key has not been used yet/, 'removing the old key before the new one is used is flagged');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  t.equal((await adminGet(t, lg, `/admin/v1/service-accounts/${account.id}`)).public_keys.length, 2, 'Cancel removes nothing');
  await removeFirst.click();
  const [removed] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'DELETE'),
    dialog.getByRole('button', { name: 'Remove key' }).click(),
  ]);
  t.equal(removed.status(), 200);
  await page
    .getByRole('main')
    .getByText(/removed: requests signed with it are now rejected/)
    .waitFor();
  await announcer.getByText(/removed: requests signed with it are now rejected/).waitFor({ state: 'attached' });
  t.match(
    await announcer.textContent(),
    new RegExp(`^Key ${account.fingerprint.replace(/[+/]/g, '\\$&')} removed: requests signed with it are now rejected`),
    'screen readers are told too',
  );
  const afterRemove = await adminGet(t, lg, `/admin/v1/service-accounts/${account.id}`);
  t.same(
    (afterRemove.public_keys as { fingerprint: string }[]).map((k) => k.fingerprint),
    [secondFingerprint],
    'the account holds only the second key',
  );
  t.equal(afterRemove.fingerprint, secondFingerprint);
  t.equal(await page.locator('.key-item').count(), 1);
  t.equal(await page.getByRole('button', { name: /^Remove/ }).count(), 0);

  await page.getByRole('button', { name: 'Back to service accounts' }).click();
  t.match(
    await page
      .getByRole('row', { name: /Payroll export/ })
      .getByRole('cell')
      .first()
      .textContent(),
    new RegExp(secondFingerprint.replace(/[+/]/g, '\\$&')),
  );
});

t.test('an OAuth client secret is rolled in the dashboard', async (t) => {
  const lg = await startListeningGateway(t);
  const client = await createClient(lg, ['sales']);
  const browser = await launchBrowser(t);
  const page = await newPage(t, browser);
  await signInWithToken(page, lg.adminUrl, lg.adminToken);
  await page.getByRole('tab', { name: 'OAuth clients' }).click();

  async function roll(grace: string): Promise<{ secret: string; body: Record<string, any> }> {
    await page
      .getByRole('row', { name: /test client/ })
      .getByRole('button', { name: /^Roll secret/ })
      .click();
    await page.getByRole('heading', { name: 'Roll the secret of “test client”' }).waitFor();
    t.ok(await page.getByRole('radio', { name: /^1 hour/ }).isChecked(), 'a planned roll keeps the old secret an hour unless told');
    await page.getByRole('radio', { name: new RegExp(`^${grace}`) }).check();
    const [response] = await Promise.all([
      page.waitForResponse(`**/admin/v1/clients/${client.client_id}/secret`),
      page.getByRole('button', { name: 'Roll secret' }).click(),
    ]);
    t.equal(response.status(), 200);
    await page.getByText('Client secret rolled', { exact: true }).waitFor();
    const secret = (await page.locator('#created-client-secret').textContent())!;
    const body = (await response.json()) as Record<string, any>;
    t.equal(secret, body.client_secret, 'the new secret is shown');
    t.match(await page.getByRole('note').textContent(), /will not be shown again/);
    return { secret, body };
  }

  const first = await roll('None');
  t.equal(first.body.previous_secret_expires_at, null);
  t.equal(await page.locator('#previous-secret-expiry').textContent(), 'Refused from now on');
  t.match(await page.locator('.alert-success').textContent(), /previous secret no longer works/);
  await screenshot(page, 'oauth-client-secret-rolled', ARTIFACT_SCREENSHOT_DIR);
  t.equal((await tokenRequest(lg, { client_id: client.client_id, client_secret: first.secret })).statusCode, 200, 'the new secret gets a token');
  const old = await tokenRequest(lg, { client_id: client.client_id, client_secret: client.client_secret });
  t.equal(old.statusCode, 401, 'the old secret is refused after a zero grace');

  await page.getByRole('button', { name: 'Done' }).click();
  const second = await roll('1 hour');
  const until = new Date(second.body.previous_secret_expires_at as string).getTime();
  t.ok(Math.abs(until - (Date.now() + 3_600_000)) < 60_000, 'the previous secret works for an hour');
  t.match(await page.locator('#previous-secret-expiry').textContent(), /^Works until /);
  t.match(await page.locator('.alert-success').textContent(), /keeps working until .* \(in 1 hour\)/);
  t.equal((await tokenRequest(lg, { client_id: client.client_id, client_secret: second.secret })).statusCode, 200);
  t.equal(
    (await tokenRequest(lg, { client_id: client.client_id, client_secret: first.secret })).statusCode,
    200,
    'the previous secret works during the grace period',
  );
  await page.getByRole('button', { name: 'Done' }).click();
  t.notOk((await page.content()).includes(second.secret), 'the list never shows the secret');
  t.notOk(lg.logs.text.includes(second.secret), 'the secret is never logged');
});

t.test('the new views fit a 375 px screen', async (t) => {
  const lg = await startListeningGateway(t);
  await createClient(lg, ['sales', 'products']);
  const created = await lg.gateway.adminApp.inject({
    method: 'POST',
    url: '/admin/v1/service-accounts',
    headers: { authorization: `Bearer ${lg.adminToken}` },
    payload: {
      description: 'Treasury reconciliation and month-end close (production)',
      public_key: newKeyLine('ops@example.com'),
      permissions: ['view_balance', 'initiate_payment'],
      expires_at: '2031-06-30T12:00:00Z',
    },
  });
  t.equal(created.statusCode, 201);
  const id = created.json<{ id: string }>().id;
  const added = await lg.gateway.adminApp.inject({
    method: 'POST',
    url: `/admin/v1/service-accounts/${id}/keys`,
    headers: { authorization: `Bearer ${lg.adminToken}` },
    payload: { public_key: newKeyLine('ops-2@example.com') },
  });
  t.equal(added.statusCode, 201);

  const browser = await launchBrowser(t);
  const page = await newPage(t, browser, PHONE);
  await signInWithToken(page, lg.adminUrl, lg.adminToken);
  await page.locator('tbody tr').first().waitFor();
  await fits(t, page, 'service-accounts-with-expiry');
  await page.getByRole('button', { name: /^Keys/ }).click();
  await page.getByRole('heading', { name: /^Keys of/ }).waitFor();
  await fits(t, page, 'service-account-keys');
  await page
    .getByRole('button', { name: /^Remove/ })
    .first()
    .click();
  await page.getByRole('dialog', { name: 'Remove key?' }).waitFor();
  await fits(t, page, 'service-account-remove-key');
  await page.getByRole('button', { name: 'Cancel' }).click();
  await page.getByRole('button', { name: 'Back to service accounts' }).click();
  await page.getByRole('link', { name: 'Create service account' }).first().click();
  await page.getByLabel('Expires').fill('2031-06-30T12:00');
  await fits(t, page, 'service-account-create-expiry');

  await page.getByRole('tab', { name: 'OAuth clients' }).click();
  await page.locator('#panel-oauth-clients tbody tr').first().waitFor();
  await fits(t, page, 'oauth-clients-roll-button');
  await page.getByRole('button', { name: /^Roll secret/ }).click();
  await page.getByRole('heading', { name: /^Roll the secret/ }).waitFor();
  await fits(t, page, 'oauth-client-roll');
  await page.getByRole('radio', { name: /^7 days/ }).check();
  await page.getByRole('button', { name: 'Roll secret' }).click();
  await page.getByText('Client secret rolled', { exact: true }).waitFor();
  await fits(t, page, 'oauth-client-rolled');
});
