// Browser: the OAuth clients tab. A client made in the dashboard gets a token at /v1/oauth/token
// with its secret (shown once); after it is deleted there, the same request fails.
import t from 'tap';
import { launchBrowser, newPage, screenshot, signInWithToken, startListeningGateway } from '../helpers/browser.js';

async function tokenRequest(publicUrl: string, clientId: string, clientSecret: string) {
  const response = await fetch(`${publicUrl}/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: clientId, client_secret: clientSecret }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

t.test('an OAuth client created in the dashboard gets a token until it is deleted there', async (t) => {
  const lg = await startListeningGateway(t);
  const browser = await launchBrowser(t);
  const page = await newPage(t, browser);
  await signInWithToken(page, lg.adminUrl, lg.adminToken);

  // Tabs: keyboard reachable, with the selected state exposed.
  await page.getByRole('tab', { name: 'Service accounts' }).focus();
  await page.keyboard.press('ArrowRight');
  await page.waitForURL('**/dashboard#oauth-clients');
  const tab = page.getByRole('tab', { name: 'OAuth clients' });
  t.equal(await tab.getAttribute('aria-selected'), 'true');
  t.equal(await page.evaluate('document.activeElement.id'), 'tab-oauth-clients', 'focus follows the arrow key');
  await page.getByRole('heading', { name: 'No OAuth clients yet' }).waitFor();
  t.equal(await page.locator('#main .button-primary:visible').count(), 1, 'one primary button on the empty page');
  await screenshot(page, 'oauth-clients-empty');

  await page.getByRole('link', { name: 'Create OAuth client' }).first().click();
  await page.getByLabel('Name').fill('Storefront backend');
  // No scope chosen: the form says so next to the scopes, without a request.
  await page.getByRole('button', { name: 'Create OAuth client' }).click();
  t.equal(await page.locator('[data-field="scopes"] .field-error').textContent(), 'Choose at least one scope.');
  await page.getByRole('checkbox', { name: /^Read sales sales / }).check();
  await page.getByRole('checkbox', { name: /^Read products/ }).check();
  const resourceServer = page.getByRole('checkbox', { name: /^Resource server \(may introspect tokens\)/ });
  t.equal(await resourceServer.isChecked(), false, 'not a resource server unless chosen');
  await resourceServer.check();
  // The lone checkbox cards are padded like the scope cards above them.
  const padding = (locator: typeof resourceServer) =>
    locator.evaluate((input) => input.ownerDocument.defaultView!.getComputedStyle(input.closest('label')).padding);
  t.equal(
    await padding(resourceServer),
    await padding(page.getByRole('checkbox', { name: /^Read products/ })),
    'the resource-server card is padded like a scope card',
  );
  t.not(await padding(resourceServer), '0px', 'and has padding');
  await screenshot(page, 'oauth-client-create');
  const [created] = await Promise.all([page.waitForResponse('**/admin/v1/clients'), page.getByRole('button', { name: 'Create OAuth client' }).click()]);
  t.equal(created.status(), 201);
  t.equal(created.request().postDataJSON().resource_server, true);
  t.equal((await created.json()).resource_server, true);
  await page.getByText('OAuth client created', { exact: true }).waitFor();
  t.match(await page.locator('.alert-success').textContent(), /can now get tokens with the scopes products, sales, and introspect tokens\./);
  const clientId = (await page.locator('#created-client-id').textContent())!;
  const clientSecret = (await page.locator('#created-client-secret').textContent())!;
  t.equal(clientSecret, (await created.json()).client_secret);
  t.ok(await page.getByRole('button', { name: 'Copy Client secret' }).isVisible());
  t.match(await page.getByRole('note').textContent(), /will not be shown again/);
  await screenshot(page, 'oauth-client-created');

  const granted = await tokenRequest(lg.publicUrl, clientId, clientSecret);
  t.equal(granted.status, 200);
  t.match(granted.body, { token_type: 'Bearer', expires_in: 86400, scope: 'products sales' });
  t.type(granted.body.access_token, 'string');

  // The list shows the client with its scopes, and never the secret.
  await page.getByRole('button', { name: 'Done' }).click();
  const row = page.getByRole('row', { name: /Storefront backend/ });
  await row.waitFor();
  t.match(await row.textContent(), /productssales/);
  t.match(await row.getByRole('cell').first().textContent(), /^Storefront backendresource server$/, 'the list marks the resource server');
  t.equal((await page.locator('thead th').allTextContents())[6], 'Last used');
  // Its token request is recorded within seconds; recorded at once here, then the list again.
  const usedAt = new Date().toISOString();
  await lg.gateway.store.recordClientUse([{ clientId, at: usedAt }]);
  await page.reload();
  const lastUsed = page
    .getByRole('row', { name: /Storefront backend/ })
    .getByRole('cell')
    .nth(6)
    .locator('time');
  t.ok(Date.parse((await lastUsed.getAttribute('datetime'))!) >= Date.parse(usedAt), 'the list shows its last use');
  t.notOk((await page.content()).includes(clientSecret), 'the secret is not in the list');
  await screenshot(page, 'oauth-clients');

  await row.getByRole('button', { name: /Delete/ }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete OAuth client?' });
  await dialog.waitFor();
  t.match(await dialog.textContent(), /immediate and permanent/);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  t.ok(await row.isVisible(), 'Cancel keeps the client');
  await row.getByRole('button', { name: /Delete/ }).click();
  await dialog.getByRole('button', { name: 'Delete permanently' }).click();
  await page.getByRole('heading', { name: 'No OAuth clients yet' }).waitFor();

  const refused = await tokenRequest(lg.publicUrl, clientId, clientSecret);
  t.equal(refused.status, 401);
  t.equal(refused.body.error, 'auth_error');
  t.notOk(lg.logs.text.includes(clientSecret), 'the secret is never logged');
});
