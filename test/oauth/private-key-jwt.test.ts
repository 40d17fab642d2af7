// private_key_jwt client authentication (RFC 7523 2.2) at the token endpoint: a client created with
// public keys gets a token with a signed assertion; every assertion that fails a check is refused as
// any failed client authentication is (401 auth_error, the same message, no token), without using
// up its jti, and counted by the failure throttle; a jti is single use across instances.
import t, { type Test } from 'tap';
import { createHash, randomUUID } from 'node:crypto';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { tokenRequest } from '../helpers/oauth.js';
import { assertionForm, claimsFor, keyPair, signAssertion, type TestKeyPair } from '../helpers/client-assertion.js';

const ISSUER = 'http://gateway.test';
const TOKEN_ENDPOINT = `${ISSUER}/v1/oauth/token`;
const FAILED = { error: 'auth_error', message: 'Client authentication failed: the client is invalid.' };
/** Many refusals from one address in one test: the throttle has a test of its own below. */
const UNTHROTTLED = { throttle_max_failures: 100_000, throttle_max_failures_per_address: 100_000, throttle_max_failures_per_credential: 1_000_000 };

interface KeyClient {
  clientId: string;
  body: Record<string, unknown>;
}

async function createKeyClient(tg: TestGateway, keys: TestKeyPair[], extra: Record<string, unknown> = {}): Promise<KeyClient> {
  const response = await tg.gateway.adminApp.inject({
    method: 'POST',
    url: '/admin/v1/clients',
    headers: { authorization: `Bearer ${tg.adminToken}` },
    payload: { name: 'key client', scopes: ['sales'], token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: keys.map((k) => k.publicJwk) }, ...extra },
  });
  if (response.statusCode !== 201) throw new Error(`client creation failed: ${response.statusCode} ${response.body}`);
  const body = response.json<Record<string, unknown>>();
  return { clientId: body.client_id as string, body };
}

function assertion(client: KeyClient, key: TestKeyPair, overrides: Record<string, unknown> = {}, header: Record<string, unknown> = {}): string {
  return signAssertion({ alg: key.alg, kid: key.publicJwk.kid, ...header }, claimsFor(client.clientId, ISSUER, overrides), key);
}

async function refused(t: Test, tg: TestGateway, form: Record<string, string>, label: string, headers: Record<string, string> = {}): Promise<void> {
  const response = await tokenRequest(tg, form, headers);
  t.equal(response.statusCode, 401, `${label}: 401`);
  const body = response.json<Record<string, unknown>>();
  t.match(body, { ...FAILED, error_description: FAILED.message }, `${label}: the usual client authentication failure`);
  t.equal(body.access_token, undefined, `${label}: no token`);
  t.equal(response.headers['www-authenticate'], undefined, `${label}: no Basic challenge`);
}

t.test('a private_key_jwt client gets a token with an Ed25519, P-256 or RSA-PSS assertion; it has no secret', async (t) => {
  const tg = await startTestGateway(t);
  for (const kind of ['Ed25519', 'P-256', 'RSA'] as const) {
    const key = keyPair(kind, `${kind}-1`);
    const client = await createKeyClient(tg, [key]);
    t.equal(client.body.client_secret, undefined, `${kind}: no secret`);
    t.equal(client.body.token_endpoint_auth_method, 'private_key_jwt');
    t.same(client.body.jwks, { keys: [key.publicJwk] }, `${kind}: the public JWK is shown, with its kid`);
    const response = await tokenRequest(tg, assertionForm(assertion(client, key)));
    t.equal(response.statusCode, 200, `${kind}: ${response.body}`);
    t.match(response.json(), { token_type: 'Bearer', scope: 'sales', access_token: /^ey/ });
    // The token endpoint URL as aud, in an array, and the fully-specified Ed25519 label, are accepted too.
    const alt = assertion(client, key, { aud: ['http://other.example', TOKEN_ENDPOINT] }, kind === 'Ed25519' ? { alg: 'Ed25519' } : {});
    t.equal((await tokenRequest(tg, assertionForm(alt, { client_id: client.clientId }))).statusCode, 200, `${kind}: aud array, token endpoint`);
  }
});

t.test('a key without kid gets its RFC 7638 thumbprint; an assertion without kid is verified with the keys that fit', async (t) => {
  const tg = await startTestGateway(t);
  const key = keyPair('Ed25519');
  const client = await createKeyClient(tg, [key]);
  const { crv, kty, x } = key.publicJwk;
  const thumbprint = createHash('sha256').update(JSON.stringify({ crv, kty, x })).digest('base64url');
  t.same(client.body.jwks, { keys: [{ crv, kty, x, kid: thumbprint }] });
  const response = await tokenRequest(tg, assertionForm(signAssertion({ alg: 'EdDSA' }, claimsFor(client.clientId, ISSUER), key)));
  t.equal(response.statusCode, 200, response.body);
});

t.test('every assertion that fails a check is refused alike, with no token', async (t) => {
  const tg = await startTestGateway(t, { config: UNTHROTTLED });
  const key = keyPair('Ed25519', 'k1');
  const client = await createKeyClient(tg, [key]);
  const other = keyPair('Ed25519', 'k1');
  const now = Math.floor(Date.now() / 1000);
  const cases: Array<[string, string]> = [
    ['wrong aud', assertion(client, key, { aud: 'http://other.example' })],
    ['aud array without us', assertion(client, key, { aud: ['http://other.example'] })],
    ['expired', assertion(client, key, { iat: now - 120, exp: now - 60 })],
    ['exp missing', assertion(client, key, { exp: undefined })],
    ['too long a lifetime', assertion(client, key, { exp: now + 3600 })],
    ['lifetime over 5 minutes from iat', assertion(client, key, { iat: now - 100, exp: now + 250 })],
    ['iat too far in the future', assertion(client, key, { iat: now + 120, exp: now + 180 })],
    ['nbf too far in the future', assertion(client, key, { nbf: now + 61 })],
    ['wrong iss', assertion(client, key, { iss: randomUUID() })],
    ['wrong sub', assertion(client, key, { sub: randomUUID() })],
    ['jti missing', assertion(client, key, { jti: undefined })],
    ['unregistered key under a registered kid', assertion(client, other)],
    ['unknown kid', assertion(client, key, {}, { kid: 'nope' })],
    ['alg none', signAssertion({ alg: 'none', kid: 'k1' }, claimsFor(client.clientId, ISSUER), undefined)],
    [
      'HS256 with the public JWK as secret',
      signAssertion({ alg: 'HS256', kid: 'k1' }, claimsFor(client.clientId, ISSUER), undefined, JSON.stringify(key.publicJwk)),
    ],
    ['HS256 with the public x as secret', signAssertion({ alg: 'HS256', kid: 'k1' }, claimsFor(client.clientId, ISSUER), undefined, key.publicJwk.x)],
    ['an alg the key does not fit', signAssertion({ alg: 'ES256', kid: 'k1' }, claimsFor(client.clientId, ISSUER), keyPair('P-256'))],
    ['RS256 (not allowed)', signAssertion({ alg: 'RS256', kid: 'k1' }, claimsFor(client.clientId, ISSUER), keyPair('RSA'))],
    ['crit header', assertion(client, key, {}, { crit: ['exp'] })],
    ['oversized assertion', assertion(client, key, { padding: 'x'.repeat(4096) })],
    ['not a JWS', 'not.a.jws!'],
    [
      'tampered claims',
      (() => {
        const [h, , s] = assertion(client, key).split('.');
        return `${h}.${Buffer.from(JSON.stringify(claimsFor(client.clientId, ISSUER, { scope: 'x' }))).toString('base64url')}.${s}`;
      })(),
    ],
  ];
  for (const [label, jws] of cases) await refused(t, tg, assertionForm(jws), label);
  await refused(t, tg, assertionForm(assertion(client, key), { client_id: randomUUID() }), 'client_id differing from iss');

  // None of those used a jti up: a refused assertion writes nothing. The same jti still works once.
  const jti = randomUUID();
  await refused(t, tg, assertionForm(assertion(client, other, { jti })), 'bad signature with a jti');
  const good = assertion(client, key, { jti });
  t.equal((await tokenRequest(tg, assertionForm(good))).statusCode, 200, 'the jti of a refused assertion is still fresh');
  await refused(t, tg, assertionForm(good), 'replayed assertion');
  await refused(t, tg, assertionForm(assertion(client, key, { jti })), 'a new assertion reusing the jti');

  // The client hears only auth_error; the log says why, for whoever sets the client up.
  const reasons = tg.logs.lines
    .map((line) => JSON.parse(line) as { msg?: string; reason?: string; client_id?: string | null })
    .filter((entry) => entry.msg === 'client assertion refused');
  const reasonOf = (text: string) => reasons.find((entry) => entry.reason === text);
  t.match(reasonOf('the aud names neither the issuer nor the token endpoint'), { client_id: client.clientId });
  t.ok(reasonOf('the assertion has expired'));
  t.ok(reasonOf("the signature does not verify with the client's registered keys"));
  t.ok(reasonOf('the assertion was used before (its jti)'));
  t.ok(reasonOf("client_id is not the assertion's iss and sub"));
  t.notOk(tg.logs.text.includes(good), 'the assertion itself is not logged');

  // iat and nbf a few seconds ahead (clock skew) are tolerated.
  t.equal((await tokenRequest(tg, assertionForm(assertion(client, key, { iat: now + 5, nbf: now + 5 })))).statusCode, 200, 'iat 5 s ahead');
});

t.test('a secret client cannot use an assertion; a private_key_jwt client cannot use a secret; never both at once', async (t) => {
  const tg = await startTestGateway(t, { config: UNTHROTTLED });
  const key = keyPair('Ed25519', 'k1');
  const keyClient = await createKeyClient(tg, [key]);
  const secretResponse = await tg.gateway.adminApp.inject({
    method: 'POST',
    url: '/admin/v1/clients',
    headers: { authorization: `Bearer ${tg.adminToken}` },
    payload: { name: 'secret client', scopes: ['sales'] },
  });
  const secretClient = secretResponse.json<{ client_id: string; client_secret: string; token_endpoint_auth_method: string; jwks: unknown }>();
  t.equal(secretClient.token_endpoint_auth_method, 'client_secret_basic', 'the default method is a secret');
  t.equal(secretClient.jwks, null);
  const forSecretClient = signAssertion({ alg: 'EdDSA', kid: 'k1' }, claimsFor(secretClient.client_id, ISSUER), key);
  await refused(t, tg, assertionForm(forSecretClient), 'an assertion for a secret client');
  await refused(t, tg, { client_id: keyClient.clientId, client_secret: 'anything' }, 'a secret for a private_key_jwt client');

  const both = await tokenRequest(tg, assertionForm(assertion(keyClient, key), { client_secret: secretClient.client_secret }));
  t.equal(both.statusCode, 400);
  t.match(both.json(), { error: 'invalid_request', message: /one client authentication method/ });
  const withBasic = await tokenRequest(tg, assertionForm(assertion(keyClient, key)), {
    authorization: `Basic ${Buffer.from(`${secretClient.client_id}:${secretClient.client_secret}`).toString('base64')}`,
  });
  t.equal(withBasic.statusCode, 400);
  t.match(withBasic.json(), { error: 'invalid_request' });
  const wrongType = await tokenRequest(tg, { ...assertionForm(assertion(keyClient, key)), client_assertion_type: 'urn:other' });
  t.equal(wrongType.statusCode, 400);
  t.match(wrongType.json(), { error: 'invalid_request', message: /client_assertion_type must be/ });
  t.equal(
    (await tokenRequest(tg, { client_id: secretClient.client_id, client_secret: secretClient.client_secret })).statusCode,
    200,
    'the secret client still works',
  );
});

t.test('with GATEWAY_OAUTH_ERROR_STYLE=rfc6749 a refused assertion is invalid_client', async (t) => {
  const tg = await startTestGateway(t, { config: { oauth_error_style: 'rfc6749' } });
  const key = keyPair('P-256', 'k1');
  const client = await createKeyClient(tg, [key]);
  const response = await tokenRequest(tg, assertionForm(assertion(client, key, { aud: 'http://other.example' })));
  t.equal(response.statusCode, 401);
  t.match(response.json(), { error: 'invalid_client', message: FAILED.message });
});

t.test('refused assertions count as failures: the throttle answers 429 at its ceiling, whatever the assertion', async (t) => {
  const tg = await startTestGateway(t, { config: { throttle_max_failures: 3, throttle_max_failures_per_address: 5 } });
  const key = keyPair('Ed25519', 'k1');
  const client = await createKeyClient(tg, [key]);
  for (let i = 0; i < 3; i++) await refused(t, tg, assertionForm(assertion(client, key, { aud: 'http://other.example' })), `failure ${i + 1}`);
  const throttled = await tokenRequest(tg, assertionForm(assertion(client, key)));
  t.equal(throttled.statusCode, 429);
  t.match(throttled.json(), { error: 'too_many_requests' });
  t.equal(throttled.json<Record<string, unknown>>().access_token, undefined);
});

t.test('a jti is single use across two instances sharing Redis', async (t) => {
  const first = await startTestGateway(t);
  const second = await startTestGateway(t, { redisPrefix: first.redisPrefix! });
  const key = keyPair('Ed25519', 'k1');
  const client = await createKeyClient(first, [key]);
  const jws = assertion(client, key);
  t.equal((await tokenRequest(second, assertionForm(jws))).statusCode, 200, 'fresh on the second instance');
  await refused(t, first, assertionForm(jws), 'replayed on the first instance');
  await refused(t, second, assertionForm(jws), 'replayed on the same instance');
  const concurrent = assertion(client, key);
  const answers = await Promise.all([first, second, first, second].map((tg) => tokenRequest(tg, assertionForm(concurrent))));
  t.same(answers.map((a) => a.statusCode).sort(), [200, 401, 401, 401], 'concurrent uses on both instances: exactly one token');
});
