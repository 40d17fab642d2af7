// Browser: a key-bound OAuth client (private_key_jwt, DPoP-bound) made in the dashboard gets a
// DPoP-bound token with an assertion signed by its key; its keys are rotated there (the second key
// added, the first removed), after which the first key's assertions are refused and the second's
// accepted. The form refuses a private key and text that is not a JWK before any request.
import t from 'tap';
import { dpopProof } from '@access-gateway/signing';
import { claimsFor, keyPair, signAssertion, type TestKeyPair } from '../helpers/client-assertion.js';
import { ARTIFACT_SCREENSHOT_DIR, launchBrowser, newPage, screenshot, signInWithToken, startListeningGateway } from '../helpers/browser.js';

t.test('a key-bound client is created and its keys rotated in the dashboard', async (t) => {
  const lg = await startListeningGateway(t);
  const browser = await launchBrowser(t);
  const page = await newPage(t, browser);
  await signInWithToken(page, lg.adminUrl, lg.adminToken);
  await page.getByRole('tab', { name: 'OAuth clients' }).click();
  await page.getByRole('link', { name: 'Create OAuth client' }).first().click();

  const first = keyPair('Ed25519', 'k1');
  const second = keyPair('P-256', 'k2');
  await page.getByLabel('Name').fill('Payments robot');
  await page.getByRole('checkbox', { name: /^Read sales sales / }).check();
  t.notOk(await page.getByLabel('Public key (JWK)', { exact: true }).isVisible(), 'the key field shows only for the key method');
  await page.getByRole('radio', { name: /^Private key \(private_key_jwt\)/ }).check();
  const keyField = page.getByLabel('Public key (JWK)', { exact: true });
  await keyField.fill(JSON.stringify({ ...first.publicJwk, d: 'secret' }));
  await page.getByRole('button', { name: 'Create OAuth client' }).click();
  t.match(await page.locator('[data-field="jwks"] .field-error').textContent(), /This is a private key/);
  await keyField.fill('ssh-ed25519 AAAA');
  await page.getByRole('button', { name: 'Create OAuth client' }).click();
  t.match(await page.locator('[data-field="jwks"] .field-error').textContent(), /Paste the public key as JSON/);
  await keyField.fill(JSON.stringify(first.publicJwk));
  await page.getByRole('checkbox', { name: /^DPoP-bound tokens/ }).check();
  await screenshot(page, 'oauth-client-create-key-bound', ARTIFACT_SCREENSHOT_DIR);
  const [created] = await Promise.all([page.waitForResponse('**/admin/v1/clients'), page.getByRole('button', { name: 'Create OAuth client' }).click()]);
  t.equal(created.status(), 201, await created.text());
  t.match(created.request().postDataJSON(), {
    token_endpoint_auth_method: 'private_key_jwt',
    dpop_bound_access_tokens: true,
    jwks: { keys: [first.publicJwk] },
  });
  await page.getByText('OAuth client created', { exact: true }).waitFor();
  t.match(await page.locator('.alert-success').textContent(), /signing its token requests with the key k1, each with a DPoP proof\./);
  t.equal(await page.locator('#created-client-secret').count(), 0, 'no secret is shown: there is none');
  const clientId = (await page.locator('#created-client-id').textContent())!;

  const dpopKey = keyPair('Ed25519').privateKey;
  // Sent to the listener; the proof names the token endpoint the metadata publishes (the issuer's).
  const tokenUrl = `${lg.publicUrl}/v1/oauth/token`;
  const tokenWith = async (key: TestKeyPair) => {
    const assertion = signAssertion({ alg: key.alg, kid: key.publicJwk.kid }, claimsFor(clientId, lg.settings.issuer), key);
    const response = await fetch(tokenUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        dpop: dpopProof(dpopKey, { method: 'POST', url: `${lg.settings.issuer}/v1/oauth/token` }),
      },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: assertion,
      }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  t.match(await tokenWith(first), { status: 200, body: { token_type: 'DPoP' } });

  await page.getByRole('button', { name: 'Done' }).click();
  const row = page.getByRole('row', { name: /Payments robot/ });
  await row.waitFor();
  t.match(await row.getByRole('cell', { name: /Private key/ }).textContent(), /^Private key \(1 key\)DPoP$/);
  t.equal(await row.getByRole('button', { name: /^Roll secret/ }).count(), 0, 'a key client has no secret to roll');

  await row.getByRole('button', { name: /^Keys/ }).click();
  await page.getByRole('heading', { name: 'Keys of “Payments robot”' }).waitFor();
  t.equal(await page.getByRole('button', { name: /^Remove/ }).count(), 0, 'the only key cannot be removed');
  await page.getByLabel('New public key').fill(JSON.stringify(second.publicJwk));
  await page.getByRole('button', { name: 'Add key' }).click();
  await page.getByRole('main').getByText('Key k2 added.', { exact: false }).waitFor();
  t.match(await page.getByRole('list', { name: 'Public keys' }).textContent(), /k1Ed25519.*k2EC P-256/);
  t.match(await tokenWith(second), { status: 200 }, 'both keys work during the rotation');
  await screenshot(page, 'oauth-client-keys');

  await page.getByRole('button', { name: 'Remove key k1' }).click();
  const dialog = page.getByRole('dialog', { name: 'Remove key?' });
  await dialog.getByRole('button', { name: 'Remove key' }).click();
  await page.getByRole('main').getByText('Key k1 removed', { exact: false }).waitFor();
  t.match(await tokenWith(first), { status: 401, body: { error: 'auth_error' } }, 'the removed key is refused');
  t.match(await tokenWith(second), { status: 200 }, 'the new one works');
});
