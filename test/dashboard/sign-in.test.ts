// Browser: signing in and out of the dashboard with the admin token or a password user, the
// session cookie's attributes, the page's security headers, and CSRF on changes.
import t from 'tap';
import { hashPassword } from '../../gateway/dashboard/password-hash.js';
import { DASHBOARD_CSP } from '../../gateway/dashboard/security-headers.js';
import { fetchFromPage, launchBrowser, newPage, screenshot, signInWithToken, startListeningGateway } from '../helpers/browser.js';

t.test('the admin token signs in; a wrong one does not; sign-out ends the session', async (t) => {
  const lg = await startListeningGateway(t);
  const browser = await launchBrowser(t);
  const page = await newPage(t, browser);

  const first = await page.goto(`${lg.adminUrl}/`);
  t.equal(new URL(page.url()).pathname, '/dashboard/sign-in', '/ and /dashboard lead to sign-in without a session');
  t.equal(first!.headers()['content-security-policy'], DASHBOARD_CSP);
  t.equal(first!.headers()['x-content-type-options'], 'nosniff');
  t.equal(first!.headers()['referrer-policy'], 'no-referrer');
  t.notMatch(await page.content(), /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
  await screenshot(page, 'sign-in');

  // A wrong token: 401 from the API, the error next to the token field, no cookie, still on sign-in.
  await page.getByRole('textbox', { name: 'Admin token' }).fill('not-the-admin-token-but-long-enough-000000');
  const cardTop = async () => (await page.locator('.sign-in-card').boundingBox())!.y;
  const before = await cardTop();
  const [wrong] = await Promise.all([page.waitForResponse('**/dashboard/api/sign-in'), page.getByRole('button', { name: 'Sign in' }).click()]);
  t.equal(wrong.status(), 401);
  t.equal((await wrong.json()).error, 'admin_unauthorized');
  const tokenError = page.locator('#token-error');
  await tokenError.waitFor();
  t.match(await tokenError.textContent(), /admin token.*wrong/);
  t.equal(await page.getByRole('textbox', { name: 'Admin token' }).getAttribute('aria-invalid'), 'true');
  t.equal(
    await page.getByRole('textbox', { name: 'Admin token' }).inputValue(),
    'not-the-admin-token-but-long-enough-000000',
    'the token is kept to be corrected',
  );
  t.equal(await page.getByLabel('Admin token').count(), 1, "the mode switch does not share the token field's name");
  t.equal(await cardTop(), before, 'the card does not jump when the error appears');
  t.same(await page.context().cookies(), [], 'no cookie after a failed sign-in');
  t.equal(new URL(page.url()).pathname, '/dashboard/sign-in');
  await screenshot(page, 'sign-in-error');

  await signInWithToken(page, lg.adminUrl, lg.adminToken);
  t.equal(await page.locator('#signed-in-as').textContent(), 'admin');
  const [cookie] = await page.context().cookies();
  t.equal(cookie!.name, 'gateway_session');
  t.equal(cookie!.httpOnly, true);
  t.equal(cookie!.sameSite, 'Strict');
  t.equal(cookie!.secure, false, 'Secure only when cookie_secure is set (TLS)');
  t.equal(cookie!.path, '/');
  t.ok(cookie!.expires > Date.now() / 1000 + 28_000 && cookie!.expires <= Date.now() / 1000 + 28_800 + 5, 'expires with the session TTL (8 h default)');
  t.equal(await page.evaluate('document.cookie'), '', 'scripts cannot read the session cookie');

  // A change without the CSRF token is refused even though the cookie is sent; nothing is created.
  const probe = { name: 'csrf probe', scopes: ['sales'] };
  const missing = await fetchFromPage(page, 'POST', '/admin/v1/clients', { headers: { 'content-type': 'application/json' }, body: probe });
  t.equal(missing.status, 403);
  t.equal(missing.body?.error, 'csrf_failed');
  const wrongToken = await fetchFromPage(page, 'POST', '/admin/v1/clients', {
    headers: { 'content-type': 'application/json', 'x-csrf-token': 'A'.repeat(43) },
    body: probe,
  });
  t.equal(wrongToken.status, 403);
  t.equal(wrongToken.body?.error, 'csrf_failed');
  const read = await fetchFromPage(page, 'GET', '/admin/v1/clients');
  t.equal(read.status, 200, 'reads need no CSRF token');
  const clients = await lg.gateway.adminApp.inject({ url: '/admin/v1/clients', headers: { authorization: `Bearer ${lg.adminToken}` } });
  t.same(clients.json(), { clients: [], next_cursor: null });

  // Sign-out: back to sign-in with a notice; the old cookie value no longer opens anything.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(`${lg.adminUrl}/dashboard/sign-in?reason=signed-out`);
  t.equal(await page.getByRole('status').first().textContent(), 'You have signed out.');
  const stale = await lg.gateway.adminApp.inject({ url: '/admin/v1/clients', headers: { cookie: `gateway_session=${cookie!.value}` } });
  t.equal(stale.statusCode, 401);
  t.equal(stale.json().error, 'admin_unauthorized');
  t.same(await page.context().cookies(), [], 'the cookie is cleared');
});

t.test('a dashboard user signs in with a password', async (t) => {
  const hash = await hashPassword('correct horse battery staple');
  const lg = await startListeningGateway(t, { config: { dashboard_users: [`alice:${hash}`] } });
  const browser = await launchBrowser(t);
  const page = await newPage(t, browser);
  await page.goto(`${lg.adminUrl}/dashboard/sign-in`);
  await page.getByRole('radio', { name: 'Dashboard user' }).check();
  await page.getByLabel('Username', { exact: true }).fill('alice');
  await page.getByLabel('Password', { exact: true }).fill('wrong horse battery staple');
  const [wrong] = await Promise.all([page.waitForResponse('**/dashboard/api/sign-in'), page.getByRole('button', { name: 'Sign in' }).click()]);
  t.equal(wrong.status(), 401);
  await page.locator('#password-error').waitFor();
  t.match(await page.locator('#password-error').textContent(), /username and password/);
  t.equal(await page.getByLabel('Password', { exact: true }).inputValue(), '', 'the wrong password is cleared');

  await page.getByLabel('Password', { exact: true }).fill('correct horse battery staple');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${lg.adminUrl}/dashboard`);
  await page.getByRole('heading', { name: 'API Credentials' }).waitFor();
  t.equal(await page.locator('#signed-in-as').textContent(), 'alice');
  t.notMatch(lg.logs.text, /correct horse|wrong horse/, 'passwords never reach the logs');
});
