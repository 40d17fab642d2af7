// Bearer checks on public routes: every bad token gets 401 invalid_token (or 403 for a missing
// scope) with a WWW-Authenticate challenge, and the upstream is never contacted.
import t, { type Test } from 'tap';
import { randomUUID } from 'node:crypto';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { goodClaims, hmacWithPublicKey, signWithForeignKey, signWithGatewayKey, unsignedToken } from '../helpers/jwt.js';
import { accessToken, createClient } from '../helpers/oauth.js';

async function call(tg: TestGateway, authorization: string | undefined, url = '/v1/sales') {
  return tg.gateway.publicApp.inject({ method: 'GET', url, headers: authorization === undefined ? {} : { authorization } });
}

async function refused(t: Test, tg: TestGateway, label: string, authorization: string | undefined, description?: string): Promise<void> {
  const before = tg.upstreams.public.received.length;
  const response = await call(tg, authorization);
  t.equal(response.statusCode, 401, `${label}: ${response.body}`);
  const body = response.json<Record<string, string>>();
  t.same(Object.keys(body).sort(), ['error', 'message', 'request_id'], `${label}: body fields`);
  t.equal(body.error, 'invalid_token', `${label}: code`);
  if (description !== undefined) {
    t.equal(response.headers['www-authenticate'], `Bearer realm="gateway", error="invalid_token", error_description="${description}"`, `${label}: challenge`);
    t.equal(body.message, `The access token is not valid: ${description}.`, `${label}: message`);
  } else {
    t.match(response.headers['www-authenticate'], /^Bearer realm="gateway"/, `${label}: challenge`);
  }
  t.equal(tg.upstreams.public.received.length, before, `${label}: upstream not contacted`);
}

t.test('missing or malformed Authorization', async (t) => {
  const tg = await startTestGateway(t);
  const response = await call(tg, undefined);
  t.equal(response.statusCode, 401);
  t.same(response.json(), {
    error: 'invalid_token',
    message: 'An access token is required: send Authorization: Bearer <token>.',
    request_id: response.json().request_id,
  });
  t.equal(response.headers['www-authenticate'], 'Bearer realm="gateway"');
  await refused(t, tg, 'empty Bearer', 'Bearer', 'the Authorization header is not a Bearer token');
  await refused(t, tg, 'Basic scheme', 'Basic dXNlcjpwYXNz', 'the Authorization header is not a Bearer token');
  await refused(t, tg, 'two tokens', 'Bearer a.b.c d.e.f', 'the Authorization header is not a Bearer token');
  await refused(t, tg, 'garbage', 'Bearer not-a-jwt', 'malformed');
  const client = await createClient(tg, ['sales']);
  const token = await accessToken(tg, client);
  const inQuery = await tg.gateway.publicApp.inject({ method: 'GET', url: `/v1/sales?access_token=${token}` });
  t.equal(inQuery.statusCode, 401, 'a token in the query is not a credential');
  t.same(tg.upstreams.public.received, []);
});

t.test('forged and tampered tokens', async (t) => {
  const tg = await startTestGateway(t);
  const client = await createClient(tg, ['sales']);
  const genuine = await accessToken(tg, client);
  const claims = goodClaims(tg, client.client_id, 'sales');
  const now = Math.floor(Date.now() / 1000);
  const kid = tg.gateway.keys.signingKey().kid;

  t.equal((await call(tg, `Bearer ${await signWithGatewayKey(tg, claims)}`)).statusCode, 200, 'control: good claims signed by the gateway key pass');

  await refused(t, tg, 'expired', `Bearer ${await signWithGatewayKey(tg, { ...claims, iat: now - 7200, exp: now - 3600 })}`, 'expired');
  const [h, p, s] = genuine.split('.') as [string, string, string];
  const flipped = `${s.slice(0, -4)}${s.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
  await refused(t, tg, 'bad signature', `Bearer ${h}.${p}.${flipped}`, 'bad signature');
  const widened = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p, 'base64url').toString()), scope: 'sales financial' })).toString('base64url');
  await refused(t, tg, 'payload changed after signing', `Bearer ${h}.${widened}.${s}`, 'bad signature');
  await refused(t, tg, 'alg none', `Bearer ${unsignedToken(claims, kid)}`);
  await refused(t, tg, 'HS256 with the public key as secret', `Bearer ${await hmacWithPublicKey(tg, claims)}`, 'algorithm not allowed');
  await refused(t, tg, 'wrong iss', `Bearer ${await signWithGatewayKey(tg, { ...claims, iss: 'http://evil.example' })}`, 'claim iss is wrong');
  await refused(t, tg, 'wrong aud', `Bearer ${await signWithGatewayKey(tg, { ...claims, aud: 'http://other-api.example' })}`, 'claim aud is wrong');
  await refused(t, tg, 'wrong typ', `Bearer ${await signWithGatewayKey(tg, claims, { typ: 'JWT' })}`, 'claim typ is wrong');
  await refused(t, tg, 'no typ', `Bearer ${await signWithGatewayKey(tg, claims, { typ: undefined })}`);
  const { jti: _jti, ...withoutJti } = claims;
  await refused(t, tg, 'missing jti', `Bearer ${await signWithGatewayKey(tg, withoutJti)}`, 'claim jti is missing');
  await refused(t, tg, 'scope not a string', `Bearer ${await signWithGatewayKey(tg, { ...claims, scope: ['sales'] })}`);
  await refused(t, tg, 'unknown key', `Bearer ${await signWithForeignKey(claims, randomUUID())}`, 'unknown signing key');
  await refused(t, tg, 'foreign key under the gateway kid', `Bearer ${await signWithForeignKey(claims, kid)}`, 'bad signature');
  await refused(t, tg, 'no kid', `Bearer ${await signWithGatewayKey(tg, claims, { kid: undefined })}`, 'unknown signing key');
  await refused(t, tg, 'client that does not exist', `Bearer ${await signWithGatewayKey(tg, goodClaims(tg, randomUUID(), 'sales'))}`, 'the client was deleted');
  t.equal(tg.upstreams.public.received.length, 1, 'only the control request reached the upstream');
});

t.test("a deleted client's tokens fail at once, also after they were used", async (t) => {
  const tg = await startTestGateway(t);
  const client = await createClient(tg, ['sales']);
  const token = await accessToken(tg, client);
  t.equal((await call(tg, `Bearer ${token}`)).statusCode, 200);
  const deleted = await tg.gateway.adminApp.inject({
    method: 'DELETE',
    url: `/admin/v1/clients/${client.client_id}`,
    headers: { authorization: `Bearer ${tg.adminToken}` },
  });
  t.equal(deleted.statusCode, 204);
  await refused(t, tg, 'deleted client', `Bearer ${token}`, 'the client was deleted');
  t.equal(tg.upstreams.public.received.length, 1);
});

t.test('insufficient scope: 403 with an RFC 6750 challenge', async (t) => {
  const tg = await startTestGateway(t);
  const client = await createClient(tg, ['sales', 'products']);
  const token = await accessToken(tg, client);
  const response = await tg.gateway.publicApp.inject({ method: 'POST', url: '/v1/sales/9/refund', headers: { authorization: `Bearer ${token}` } });
  t.equal(response.statusCode, 403);
  t.same(response.json(), { error: 'insufficient_scope', message: 'This route requires the scope sales_refund.', request_id: response.json().request_id });
  t.match(response.headers['www-authenticate'], 'error="insufficient_scope"');
  t.equal(response.headers['www-authenticate'], 'Bearer realm="gateway", error="insufficient_scope", scope="sales_refund"');
  const narrowed = await accessToken(tg, client, 'products');
  const sales = await call(tg, `Bearer ${narrowed}`);
  t.equal(sales.statusCode, 403, 'a narrowed token lacks the scopes it did not ask for');
  t.same(tg.upstreams.public.received, []);
});
