// The sign-in page states how long a session lasts, from the session_ttl_seconds setting.
import t from 'tap';
import { launchBrowser, newPage, startListeningGateway } from '../helpers/browser.js';

t.test('the sign-in page says how long a session lasts, as configured', async (t) => {
  const lg = await startListeningGateway(t, { config: { session_ttl_seconds: 5400 } });
  const policy = await lg.gateway.adminApp.inject({ url: '/dashboard/api/session-policy' });
  t.equal(policy.statusCode, 200, 'readable before sign-in');
  t.same(policy.json(), { session_ttl_seconds: 5400 });
  t.equal(policy.headers['cache-control'], 'no-store');

  const browser = await launchBrowser(t);
  const page = await newPage(t, browser);
  await page.goto(`${lg.adminUrl}/dashboard/sign-in`);
  await page.getByText('Sessions last 90 minutes from sign-in, or until you sign out.').waitFor();
  t.pass('stated in the largest unit that is exact');
});
