// Browser: the service-account list as operators see it (populated, with last use) and the filled
// create form; these two screenshots are the ones the README shows.
import { generateKeyPairSync } from 'node:crypto';
import t from 'tap';
import { serviceAccountFromInput } from '../../gateway/admin/service-account-input.js';
import { sshPublicKeyLine } from '../../gateway/signing/index.js';
import { launchBrowser, newPage, screenshot, signInWithToken, startListeningGateway, type ListeningGateway } from '../helpers/browser.js';

const DAY = 86_400_000;

/** Accounts created some days ago (straight into the store, so their dates look lived-in). */
const FIXTURES = [
  {
    description: 'Treasury reconciliation (production)',
    permissions: ['view_balance', 'view_transactions'],
    allowed_ips: ['203.0.113.24', '198.51.100.0/24'],
    daysAgo: 41,
    used: { minutesAgo: 3, ip: '203.0.113.24' },
  },
  {
    description: 'Payouts service',
    permissions: ['view_balance', 'initiate_payment'],
    allowed_ips: ['198.51.100.17'],
    daysAgo: 19,
    used: { minutesAgo: 95, ip: '198.51.100.17' },
  },
  { description: 'PIX key sync', permissions: ['list_dict_keys'], daysAgo: 6, used: { minutesAgo: 60 * 27, ip: '2001:db8:4::12' } },
  {
    description: 'Support console (read-only)',
    permissions: ['view_account_details', 'view_transactions'],
    allowed_ips: ['10.20.0.0/16'],
    daysAgo: 2,
    used: null,
  },
] as const;

async function seedAccounts(lg: ListeningGateway): Promise<void> {
  for (const fixture of FIXTURES) {
    const { privateKey } = generateKeyPairSync('ed25519');
    const record = serviceAccountFromInput(
      {
        description: fixture.description,
        public_key: sshPublicKeyLine(privateKey, 'ops@example.com'),
        permissions: fixture.permissions,
        ...('allowed_ips' in fixture ? { allowed_ips: fixture.allowed_ips } : {}),
      },
      new Date(Date.now() - fixture.daysAgo * DAY),
    );
    t.ok(await lg.gateway.store.createServiceAccount(record));
    if (fixture.used)
      await lg.gateway.store.recordServiceAccountUse([
        {
          accessId: record.accessId,
          at: new Date(Date.now() - fixture.used.minutesAgo * 60_000).toISOString(),
          ip: fixture.used.ip,
          fingerprint: record.fingerprint,
        },
      ]);
  }
}

t.test('the list shows every account with its Access ID hidden, and the create form explains each field', async (t) => {
  const lg = await startListeningGateway(t);
  await seedAccounts(lg);
  const browser = await launchBrowser(t);
  const page = await newPage(t, browser);
  await signInWithToken(page, lg.adminUrl, lg.adminToken);

  const rows = page.locator('tbody tr');
  await rows.first().waitFor();
  t.equal(await rows.count(), FIXTURES.length);
  const descriptions = await page.locator('tbody tr td:first-child .cell-title').allTextContents();
  t.same(
    descriptions,
    [...FIXTURES].sort((a, b) => a.daysAgo - b.daysAgo).map((f) => f.description),
    'newest first',
  );
  const headers = await page.locator('thead th').allTextContents();
  t.same(headers.slice(0, 6), ['Description', 'Access ID', 'Permissions', 'Allowed IPs', 'Created', 'Last used']);
  const treasury = page.getByRole('row', { name: /Treasury reconciliation/ });
  t.match(await treasury.textContent(), /view_balance.*view_transactions/);
  t.match(await treasury.textContent(), /203\.0\.113\.24.*198\.51\.100\.0\/24/);
  t.match(await treasury.textContent(), /3 minutes ago.*from 203\.0\.113\.24/);
  t.match(await page.getByRole('row', { name: /PIX key sync/ }).textContent(), /Any address/);
  t.match(await page.getByRole('row', { name: /Support console/ }).textContent(), /Never/);
  t.notMatch(await page.locator('tbody').textContent(), /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}/, 'no Access ID in full');
  await screenshot(page, 'service-accounts-list');

  await page.getByRole('link', { name: 'Create service account' }).click();
  await page.getByLabel('Description').fill('Cash-flow forecaster (production)');
  const { privateKey } = generateKeyPairSync('ed25519');
  await page.getByLabel('Public key').fill(sshPublicKeyLine(privateKey, 'forecaster@prod-batch-01'));
  await page.getByRole('checkbox', { name: /View balance/ }).check();
  await page.getByRole('checkbox', { name: /View transactions/ }).check();
  await page.getByLabel('Allowed IPs').fill('203.0.113.40\n198.51.100.0/24');
  // Each permission is labelled with its meaning (seed 5.3) and the routes it opens.
  t.match(await page.getByRole('checkbox', { name: /List PIX keys/ }).getAttribute('aria-describedby'), /sa-permissions-list_dict_keys-detail/);
  t.match(await page.locator('#sa-permissions-list_dict_keys-detail').textContent(), /list_dict_keys.*GET \/v1\/dict-keys/);
  t.equal(await page.locator('.checkbox-option').count(), 7);
  t.match(await page.locator('#sa-permissions-hint').textContent(), /Grant only what this program needs/);
  t.match(await page.locator('#sa-allowed-ips-hint').textContent(), /default: 0\.0\.0\.0\/0, ::\/0/);
  await page.getByLabel('Description').focus();
  await screenshot(page, 'service-account-create');
});

t.test('a long list comes in pages: the first hundred, then "Show more" until every account is shown', async (t) => {
  const lg = await startListeningGateway(t, { store: 'embedded' });
  const { privateKey } = generateKeyPairSync('ed25519');
  const publicKey = sshPublicKeyLine(privateKey, 'bulk@example.com');
  for (let i = 0; i < 130; i++) {
    t.ok(
      await lg.gateway.store.createServiceAccount(
        serviceAccountFromInput({ description: `Bulk account ${i}`, public_key: publicKey, permissions: ['view_balance'] }),
      ),
    );
  }
  const browser = await launchBrowser(t);
  const page = await newPage(t, browser);
  await signInWithToken(page, lg.adminUrl, lg.adminToken);
  const rows = page.locator('tbody tr');
  await rows.first().waitFor();
  t.equal(await rows.count(), 100, 'the first page');
  t.match(await page.locator('caption').textContent(), /Service accounts \(100 shown, more available\)/);
  await page.getByRole('button', { name: 'Show more service accounts' }).click();
  await page.locator('tbody tr:nth-child(130)').waitFor();
  t.equal(await rows.count(), 130, 'the second page is appended');
  t.equal(await page.getByRole('button', { name: 'Show more service accounts' }).count(), 0, 'no more pages: the button is gone');
  t.match(await page.locator('caption').textContent(), /Service accounts \(130 shown\)/);
  t.equal(new Set(await page.locator('tbody .cell-title').allTextContents()).size, 130, 'each account once');
});
