// Browser: the lists, banners and cards with realistic data (a long description, five permissions,
// three addresses, a key-bound client, long names) at every width from a small phone to a desktop:
// 320, 375, 768, 1024, 1280 and 1440 px (cards up to 1280, a table above). Nothing is wider than the screen or spills out of its card, and
// every row's actions are on screen.
import { generateKeyPairSync } from 'node:crypto';
import type { Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { serviceAccountFromInput } from '../../gateway/admin/service-account-input.js';
import { sshPublicKeyLine } from '../../gateway/signing/index.js';
import {
  ARTIFACT_SCREENSHOT_DIR,
  launchBrowser,
  newPage,
  screenshot,
  signInWithToken,
  startListeningGateway,
  type ListeningGateway,
} from '../helpers/browser.js';
import { keyPair } from '../helpers/client-assertion.js';
import { elementsPastRightEdge, outsideViewport, pageWidth, spillingOut } from '../helpers/layout.js';
import { createClient } from '../helpers/oauth.js';

const WIDTHS = [320, 375, 768, 1024, 1280, 1440] as const;

async function seed(lg: ListeningGateway): Promise<string> {
  const record = serviceAccountFromInput({
    description: 'Treasury reconciliation, month-end close and intraday liquidity reporting (production, São Paulo region)',
    public_key: sshPublicKeyLine(generateKeyPairSync('ed25519').privateKey, 'treasury-reconciliation@ops.example.com'),
    permissions: ['view_balance', 'view_transactions', 'view_account_details', 'list_dict_keys', 'initiate_payment'],
    allowed_ips: ['203.0.113.24', '198.51.100.0/24', '2001:db8:4:ffff:ffff:ffff:ffff:12'],
    account_id: 'acct-treasury-0000000000000001',
  });
  t.ok(await lg.gateway.store.createServiceAccount(record));
  await lg.gateway.store.recordServiceAccountUse([
    { accessId: record.accessId, at: new Date(Date.now() - 120_000).toISOString(), ip: '2001:db8:4:ffff:ffff:ffff:ffff:12', fingerprint: record.fingerprint },
  ]);
  await createClient(lg, ['sales', 'products', 'events', 'stats', 'financial', 'affiliates'], {
    name: 'Storefront backend with a rather long name for the marketplace integration',
    account_id: 'acct-storefront-000000000002',
  });
  await createClient(lg, ['sales'], {
    name: 'Payments robot',
    token_endpoint_auth_method: 'private_key_jwt',
    jwks: { keys: [keyPair('P-256', 'k1').publicJwk] },
    dpop_bound_access_tokens: true,
  });
  return record.id;
}

async function fits(t: Test, page: Page, name: string, actions: string): Promise<void> {
  const viewport = page.viewportSize()!.width;
  const width = await pageWidth(page);
  t.ok(width <= viewport, `${name}: ${width} px wide on a ${viewport} px screen`, { pastRightEdge: await elementsPastRightEdge(page) });
  for (const container of ['.card', '.alert']) t.same(await spillingOut(page, container), [], `${name}: nothing spills out of ${container}`);
  t.same(await outsideViewport(page, [actions]), [], `${name}: every action is on screen`);
  if (viewport < 720) {
    const heights = await page.locator(actions).evaluateAll((buttons) => buttons.map((button) => button.getBoundingClientRect().height));
    t.ok(heights.length > 0 && heights.every((height) => height >= 44), `${name}: touch targets of 44 px or more (${heights.join(', ')})`);
  }
  await screenshot(page, `width-${viewport}-${name}`, ARTIFACT_SCREENSHOT_DIR);
}

t.test('lists, banners and cards fit every width, with every action on screen', async (t) => {
  const lg = await startListeningGateway(t);
  const accountId = await seed(lg);
  const browser = await launchBrowser(t);
  for (const width of WIDTHS) {
    const page = await newPage(t, browser, { width, height: 800 });
    await signInWithToken(page, lg.adminUrl, lg.adminToken);
    await page.locator('tbody tr').first().waitFor();
    await fits(t, page, 'service-accounts', '.row-actions .button');
    t.match(await page.getByRole('row', { name: /Treasury/ }).textContent(), /Account acct-treasury-0000000000000001/, 'the account id is in the list');

    await page
      .getByRole('row', { name: /Treasury/ })
      .getByRole('button', { name: /^Keys/ })
      .click();
    await page.getByRole('heading', { name: /^Keys of/ }).waitFor();
    await page.getByLabel('New public key').fill(sshPublicKeyLine(generateKeyPairSync('ed25519').privateKey, 'treasury-2027'));
    await page.getByRole('button', { name: 'Add key' }).click();
    await page
      .getByRole('main')
      .getByText(/added\. Both keys now verify/)
      .waitFor();
    await fits(t, page, 'service-account-keys', '.key-item .button');
    // Back to one key for the next width.
    const second = (await lg.gateway.store.getServiceAccount(accountId))!.publicKeys[1]!;
    await lg.gateway.store.removeServiceAccountKey(accountId, second.fingerprint);

    await page.getByRole('tab', { name: 'OAuth clients' }).click();
    await page.getByRole('row', { name: /Payments robot/ }).waitFor();
    await fits(t, page, 'oauth-clients', '.row-actions .button');
    await page.close();
  }
});
