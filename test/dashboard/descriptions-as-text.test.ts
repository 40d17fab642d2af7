// Browser: descriptions and names are text, never markup, wherever the dashboard shows them
// (list, created view, delete dialog), and the page's CSP would block inline script anyway.
import t from 'tap';
import { sshPublicKeyLine } from '../../gateway/signing/index.js';
import { generateKeyPairSync } from 'node:crypto';
import { launchBrowser, newPage, screenshot, signInWithToken, startListeningGateway } from '../helpers/browser.js';

const PAYLOAD = '<img src=x onerror=alert(1)>';

t.test('a description made of markup is shown as the characters typed', async (t) => {
  const lg = await startListeningGateway(t);
  const browser = await launchBrowser(t);
  const page = await newPage(t, browser); // fails the test on any alert() dialog
  const imageRequests: string[] = [];
  page.on('request', (request) => {
    if (request.resourceType() === 'image' && !request.url().endsWith('/favicon.svg')) imageRequests.push(request.url());
  });
  await signInWithToken(page, lg.adminUrl, lg.adminToken);

  await page.getByRole('link', { name: 'Create service account' }).first().click();
  await page.getByLabel('Description').fill(PAYLOAD);
  await page.getByLabel('Public key').fill(sshPublicKeyLine(generateKeyPairSync('ed25519').privateKey, 'x@example'));
  await page.getByRole('checkbox', { name: /View balance/ }).check();
  await page.getByRole('button', { name: 'Create service account' }).click();
  await page.getByText('Service account created', { exact: true }).waitFor();
  t.match(await page.locator('.alert-success').textContent(), `“${PAYLOAD}” can now sign requests`);
  t.equal(await page.locator('.details dd').first().textContent(), PAYLOAD);

  await page.getByRole('button', { name: 'Done' }).click();
  const title = page.locator('tbody .cell-title');
  await title.waitFor();
  t.equal(await title.textContent(), PAYLOAD, 'the list shows the text');
  t.equal(await title.innerHTML(), '&lt;img src=x onerror=alert(1)&gt;', 'escaped in the DOM');
  t.equal(await page.locator('main img').count(), 0, 'no image element was made from it');
  await screenshot(page, 'description-as-text');

  await page.getByRole('button', { name: /Delete/ }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete service account?' });
  await dialog.waitFor();
  t.equal(await dialog.locator('strong').first().textContent(), PAYLOAD);
  t.equal(await dialog.locator('img').count(), 0);
  await dialog.getByRole('button', { name: 'Cancel' }).click();

  // The same for an OAuth client's name.
  await page.getByRole('tab', { name: 'OAuth clients' }).click();
  await page.getByRole('link', { name: 'Create OAuth client' }).first().click();
  await page.getByLabel('Name').fill(PAYLOAD);
  await page.getByRole('checkbox', { name: /^Read sales statistics/ }).check();
  await page.getByRole('button', { name: 'Create OAuth client' }).click();
  await page.getByRole('button', { name: 'Done' }).click();
  const name = page.locator('#panel-oauth-clients tbody .cell-title');
  await name.waitFor();
  t.equal(await name.textContent(), PAYLOAD);
  t.equal(await page.locator('main img').count(), 0);
  t.same(imageRequests, [], 'the browser never tried to load the injected image');
});
