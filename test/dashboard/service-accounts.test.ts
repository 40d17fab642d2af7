// Browser, end to end: create a service account in the dashboard with a key made here, read its
// Access ID once, see it hidden after a reload, call the banking API through the gateway with a
// request signed by that key (200), delete the account in the dashboard, and get 401.
import { generateKeyPairSync } from 'node:crypto';
import t from 'tap';
import { signedFetch, sshPublicKeyLine } from '../../gateway/signing/index.js';
import { launchBrowser, newPage, screenshot, signInWithToken, startListeningGateway } from '../helpers/browser.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

t.test('a service account made in the dashboard signs requests until it is deleted there', async (t) => {
  const lg = await startListeningGateway(t);
  const browser = await launchBrowser(t);
  const page = await newPage(t, browser);
  await signInWithToken(page, lg.adminUrl, lg.adminToken);

  await page.getByRole('heading', { name: 'No service accounts yet' }).waitFor();
  await screenshot(page, 'service-accounts-empty');

  await page.getByRole('link', { name: 'Create service account' }).first().click();
  await page.getByRole('heading', { name: 'Create service account' }).waitFor();
  await page.getByLabel('Description').fill('Balance monitor (staging)');

  // A key of the wrong type: the API's reason appears next to the public key field.
  const { publicKey: rsa } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const rsaLine = `ssh-rsa ${Buffer.from(rsa.export({ type: 'pkcs1', format: 'der' })).toString('base64')} ops@example`;
  await page.getByLabel('Public key').fill(rsaLine);
  await page.getByRole('checkbox', { name: /View balance/ }).check();
  const [rejected] = await Promise.all([
    page.waitForResponse('**/admin/v1/service-accounts'),
    page.getByRole('button', { name: 'Create service account' }).click(),
  ]);
  t.equal(rejected.status(), 400);
  t.match(await rejected.json(), { error: 'validation_error', field: 'public_key' });
  const keyError = page.locator('[data-field="public_key"] .field-error');
  await keyError.waitFor();
  t.match(await keyError.textContent(), /^Public key is a ssh-rsa key; only ssh-ed25519 keys are accepted/);
  t.equal(await page.getByLabel('Public key').getAttribute('aria-invalid'), 'true');
  t.match(await page.getByLabel('Public key').getAttribute('aria-describedby'), /sa-public-key-error/, 'the error is announced with the field');
  t.equal(await page.evaluate('document.activeElement.id'), 'sa-public-key', 'focus moves to the field in error');
  await screenshot(page, 'service-account-key-error');

  // The right key: created, and the Access ID shown in full with a copy button and a warning.
  const { privateKey } = generateKeyPairSync('ed25519');
  await page.getByLabel('Public key').fill(sshPublicKeyLine(privateKey, 'balance-monitor@staging'));
  const [created] = await Promise.all([
    page.waitForResponse('**/admin/v1/service-accounts'),
    page.getByRole('button', { name: 'Create service account' }).click(),
  ]);
  t.equal(created.status(), 201);
  await page.getByText('Service account created', { exact: true }).waitFor();
  const accessId = (await page.locator('#created-access-id').textContent())!;
  t.match(accessId, UUID);
  t.equal(accessId, (await created.json()).access_id);
  t.ok(await page.getByRole('button', { name: 'Copy Access ID' }).isVisible());
  t.match(await page.getByRole('note').textContent(), /will not be shown again/);
  await screenshot(page, 'service-account-created');
  await page.getByRole('button', { name: 'Copy Access ID' }).click();
  t.equal(await page.evaluate('navigator.clipboard.readText()'), accessId, 'the copy button copies the Access ID');

  // After a reload the Access ID is only partly visible, anywhere on the page.
  await page.reload();
  const row = page.getByRole('row', { name: /Balance monitor \(staging\)/ });
  await row.waitFor();
  t.notOk((await page.content()).includes(accessId), 'the full Access ID is gone after a reload');
  t.ok((await row.textContent())!.includes(`${accessId.slice(0, 8)}-****`), 'the list shows the Access ID partly hidden');
  t.match(await row.textContent(), /view_balance/);
  t.match(await row.textContent(), /Any address/);

  // The key made here signs a request that the gateway forwards to the banking upstream.
  const url = `${lg.publicUrl}/v1/balance`;
  const allowed = await signedFetch(url, { accessId, privateKey });
  t.equal(allowed.status, 200);
  const echoed = (await allowed.json()) as { upstream: string; headers: Record<string, string> };
  t.equal(echoed.upstream, 'banking');
  t.equal(echoed.headers['x-gateway-permissions'], 'view_balance');

  // Delete in the dashboard: the dialog says it is immediate and permanent.
  await row.getByRole('button', { name: /Delete/ }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete service account?' });
  await dialog.waitFor();
  t.match(await dialog.textContent(), /immediate and permanent/);
  t.match(await dialog.textContent(), /401 Unauthorized/);
  t.equal(await page.evaluate('document.activeElement.id'), 'confirm-cancel', 'Cancel has focus, so Enter alone never deletes');
  await screenshot(page, 'service-account-delete');
  const [deleted] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'DELETE'),
    dialog.getByRole('button', { name: 'Delete permanently' }).click(),
  ]);
  t.equal(deleted.status(), 204);
  await page.getByRole('heading', { name: 'No service accounts yet' }).waitFor();
  t.match(await page.locator('.alert-success').textContent(), /was deleted/);

  const refused = await signedFetch(url, { accessId, privateKey });
  t.equal(refused.status, 401);
  t.equal(((await refused.json()) as { error: string }).error, 'unknown_access_id');
  t.notOk(lg.logs.text.includes(accessId), 'the full Access ID is never logged');
});
