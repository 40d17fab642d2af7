// Browser: every dashboard page at a desktop width (1280 px) and a phone's (375 px). Nothing is
// wider than the screen, the header's items never sit on each other, every field error of a form
// shows at once on submit (the server's, too, at its field), and each page is screenshotted as
// desktop-<page>.png / phone-<page>.png in test-output/screenshots/.
import { generateKeyPairSync } from 'node:crypto';
import type { Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { serviceAccountFromInput } from '../../gateway/admin/service-account-input.js';
import { sshPublicKeyLine } from '../../gateway/signing/index.js';
import {
  ARTIFACT_SCREENSHOT_DIR,
  DESKTOP,
  launchBrowser,
  newPage,
  PHONE,
  screenshot,
  signInWithToken,
  startListeningGateway,
  type ListeningGateway,
} from '../helpers/browser.js';
import { elementsPastRightEdge, outsideViewport, overlappingPairs, pageWidth, spillingOut, wrappedText } from '../helpers/layout.js';
import { createClient } from '../helpers/oauth.js';

const HEADER = ['.brand', '.topbar-user > .muted', '#signed-in-as', '#sign-out'];
const HEADER_WORDS = ['.brand > span', '.topbar-user > .muted', '#signed-in-as', '#sign-out'];
const TABS = ['#tab-service-accounts', '#tab-oauth-clients'];
/** Boxes whose content must stay inside them. */
const CONTAINERS = ['.topbar', '.card', '.sign-in-card', '.segmented', 'dialog[open]'];

/** Accounts with long descriptions, several permissions and addresses: the widest rows the list shows. */
async function seed(lg: ListeningGateway): Promise<void> {
  const { privateKey } = generateKeyPairSync('ed25519');
  const accounts = [
    {
      description: 'Treasury reconciliation and month-end close (production)',
      permissions: ['view_balance', 'view_transactions', 'view_account_details'],
      allowed_ips: ['203.0.113.24', '198.51.100.0/24', '2001:db8:4::12'],
    },
    { description: 'Payouts service', permissions: ['view_balance', 'initiate_payment', 'cancel_scheduled_payments'], allowed_ips: ['198.51.100.17'] },
  ];
  for (const account of accounts) {
    const record = serviceAccountFromInput({ ...account, public_key: sshPublicKeyLine(privateKey, 'ops@example.com') });
    t.ok(await lg.gateway.store.createServiceAccount(record));
    await lg.gateway.store.recordServiceAccountUse([
      { accessId: record.accessId, at: new Date(Date.now() - 120_000).toISOString(), ip: '2001:db8:4::12', fingerprint: record.fingerprint },
    ]);
  }
  await createClient(lg, ['sales', 'products']);
}

/** The page fits the screen and its header items are apart; then a screenshot named for the width. */
async function checkLayout(t: Test, page: Page, width: 'desktop' | 'phone', name: string): Promise<void> {
  const viewport = page.viewportSize()!.width;
  const scrollWidth = await pageWidth(page);
  t.ok(scrollWidth <= viewport, `${name}: the page is ${scrollWidth} px wide on a ${viewport} px screen`, { pastRightEdge: await elementsPastRightEdge(page) });
  for (const container of CONTAINERS) t.same(await spillingOut(page, container), [], `${name}: nothing spills out of ${container}`);
  if ((await page.locator('.topbar').count()) > 0) {
    t.same(await overlappingPairs(page, HEADER), [], `${name}: no two header items overlap`);
    t.same(await wrappedText(page, HEADER_WORDS), [], `${name}: each header item is on one line`);
    t.same(await outsideViewport(page, [...HEADER, ...TABS]), [], `${name}: header items and tabs are on screen`);
    t.same(await overlappingPairs(page, TABS), [], `${name}: the tabs do not overlap`);
  }
  await screenshot(page, `${width}-${name}`, ARTIFACT_SCREENSHOT_DIR);
}

/** The visible field errors' texts, in page order. */
async function visibleFieldErrors(page: Page): Promise<string[]> {
  const errors = page.locator('.field-error:visible');
  return errors.allTextContents();
}

for (const [width, viewport] of [
  ['desktop', DESKTOP],
  ['phone', PHONE],
] as const) {
  t.test(`every dashboard page fits a ${width} screen (${viewport.width} px)`, async (t) => {
    const lg = await startListeningGateway(t);
    await seed(lg);
    const browser = await launchBrowser(t);
    const page = await newPage(t, browser, viewport);
    const posts: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().includes('/admin/v1/')) posts.push(request.url());
    });

    // Sign-in: the session length is stated; both sign-in modes, each field's error at once.
    await page.goto(`${lg.adminUrl}/dashboard/sign-in`);
    await page.getByText('Sessions last 8 hours from sign-in, or until you sign out.').waitFor();
    await checkLayout(t, page, width, 'sign-in');
    await page.getByRole('radio', { name: 'Dashboard user' }).check();
    await page.getByRole('button', { name: 'Sign in' }).click();
    t.same(await visibleFieldErrors(page), ['Enter your username.', 'Enter your password.'], 'both missing fields are named on the first submit');
    t.equal(await page.evaluate('document.activeElement.id'), 'username', 'focus goes to the first field in error');
    await checkLayout(t, page, width, 'sign-in-errors');

    await signInWithToken(page, lg.adminUrl, lg.adminToken);
    await page.locator('tbody tr').first().waitFor();
    t.equal(await page.locator('tbody tr').count(), 2);
    await checkLayout(t, page, width, 'service-accounts');
    const card = await page.locator('tbody tr').first().boundingBox();
    t.ok(card!.x >= 0 && card!.x + card!.width <= viewport.width, 'each row fits the screen whole');

    // The create form: an empty submit names every field to fix at once, and sends nothing.
    await page.getByRole('link', { name: 'Create service account' }).click();
    await page.getByRole('heading', { name: 'Create service account' }).waitFor();
    await checkLayout(t, page, width, 'service-account-create');
    await page.getByRole('button', { name: 'Create service account' }).click();
    t.same(await visibleFieldErrors(page), [
      'Enter a description.',
      'Paste the public key: an ssh-ed25519 line, a PEM public key or a JWK.',
      'Choose at least one permission.',
    ]);
    t.equal(await page.evaluate('document.activeElement.id'), 'sa-description');
    t.same(posts, [], 'nothing was sent');
    await checkLayout(t, page, width, 'service-account-errors');

    // Filling one field clears only its error; the others stay until fixed.
    await page.getByLabel('Description').fill('Cash-flow forecaster');
    t.same(await visibleFieldErrors(page), ['Paste the public key: an ssh-ed25519 line, a PEM public key or a JWK.', 'Choose at least one permission.']);

    // What only the server can judge is shown at the field its 400 names.
    const { privateKey } = generateKeyPairSync('ed25519');
    await page.getByLabel('Public key').fill(sshPublicKeyLine(privateKey, 'forecaster@example'));
    await page.getByRole('checkbox', { name: /View balance/ }).check();
    await page.getByLabel('Allowed IPs').fill('203.0.113.40\nnot-an-address');
    const [refused] = await Promise.all([
      page.waitForResponse('**/admin/v1/service-accounts'),
      page.getByRole('button', { name: 'Create service account' }).click(),
    ]);
    t.equal(refused.status(), 400);
    t.equal((await refused.json()).field, 'allowed_ips');
    await page.locator('[data-field="allowed_ips"] .field-error').waitFor();
    t.equal((await visibleFieldErrors(page)).length, 1);
    t.match(await page.locator('[data-field="allowed_ips"] .field-error').textContent(), /^Allowed IPs/);
    t.equal(await page.getByLabel('Allowed IPs').getAttribute('aria-invalid'), 'true');
    await checkLayout(t, page, width, 'service-account-server-error');

    await page.getByLabel('Allowed IPs').fill('203.0.113.40');
    await page.getByRole('button', { name: 'Create service account' }).click();
    await page.getByText('Service account created', { exact: true }).waitFor();
    await checkLayout(t, page, width, 'service-account-created');

    await page.getByRole('button', { name: 'Done' }).click();
    const row = page.getByRole('row', { name: /Cash-flow forecaster/ });
    await row.waitFor();
    await row.getByRole('button', { name: /Delete/ }).click();
    await page.getByRole('dialog', { name: 'Delete service account?' }).waitFor();
    await checkLayout(t, page, width, 'service-account-delete');
    await page.getByRole('button', { name: 'Cancel' }).click();

    // OAuth clients: the list, and the form's errors at once.
    await page.getByRole('tab', { name: 'OAuth clients' }).click();
    await page.locator('#panel-oauth-clients tbody tr').first().waitFor();
    await checkLayout(t, page, width, 'oauth-clients');
    await page.getByRole('link', { name: 'Create OAuth client' }).click();
    await page.getByRole('button', { name: 'Create OAuth client' }).click();
    t.same(await visibleFieldErrors(page), ['Enter a name.', 'Choose at least one scope.']);
    await checkLayout(t, page, width, 'oauth-client-errors');
    await page.getByLabel('Name').fill('Storefront backend (production, eu-west-1)');
    await page.getByRole('checkbox', { name: /^Read sales sales / }).check();
    await page.getByRole('button', { name: 'Create OAuth client' }).click();
    await page.getByText('OAuth client created', { exact: true }).waitFor();
    await checkLayout(t, page, width, 'oauth-client-created');
  });
}
