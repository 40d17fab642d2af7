// Signing key rotation: the JWKS serves the active and the previous key, tokens signed before the
// rotation keep working, new tokens use the new kid, and other instances follow at once.
import t from 'tap';
import { decodeProtectedHeader } from 'jose';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { accessToken, createClient } from '../helpers/oauth.js';

async function rotate(tg: TestGateway): Promise<{ active_kid: string; previous_kid: string }> {
  const response = await tg.gateway.adminApp.inject({ method: 'POST', url: '/admin/v1/signing-keys/rotate', headers: { authorization: `Bearer ${tg.adminToken}` } });
  if (response.statusCode !== 200) throw new Error(`rotation failed: ${response.statusCode} ${response.body}`);
  return response.json() as { active_kid: string; previous_kid: string };
}

async function jwksKids(tg: TestGateway): Promise<string[]> {
  const response = await tg.gateway.publicApp.inject({ method: 'GET', url: '/.well-known/jwks.json' });
  return (response.json() as { keys: Array<{ kid: string }> }).keys.map((k) => k.kid);
}

const get = (tg: TestGateway, token: string) => tg.gateway.publicApp.inject({ method: 'GET', url: '/v1/sales', headers: { authorization: `Bearer ${token}` } });

t.test('rotation keeps old tokens valid and signs new ones with the new key', async (t) => {
  const tg = await startTestGateway(t);
  const client = await createClient(tg, ['sales']);
  const before = await accessToken(tg, client);
  const firstKid = decodeProtectedHeader(before).kid!;
  t.same(await jwksKids(tg), [firstKid]);
  t.equal((await get(tg, before)).statusCode, 200);

  const unauthorized = await tg.gateway.adminApp.inject({ method: 'POST', url: '/admin/v1/signing-keys/rotate' });
  t.equal(unauthorized.statusCode, 401, 'rotation needs the admin token');

  const rotated = await rotate(tg);
  t.equal(rotated.previous_kid, firstKid);
  t.not(rotated.active_kid, firstKid);
  t.same(await jwksKids(tg), [rotated.active_kid, firstKid], 'JWKS serves the active and the previous key');
  t.equal((await get(tg, before)).statusCode, 200, 'a token signed before the rotation still verifies');
  const after = await accessToken(tg, client);
  t.equal(decodeProtectedHeader(after).kid, rotated.active_kid, 'new tokens use the new kid');
  t.equal((await get(tg, after)).statusCode, 200);

  const again = await rotate(tg);
  t.same(await jwksKids(tg), [again.active_kid, rotated.active_kid], 'the key rotated out twice is no longer published');
  const stale = await get(tg, before);
  t.equal(stale.statusCode, 401, 'a token signed with a key rotated out twice no longer verifies');
  t.equal(stale.headers['www-authenticate'], 'Bearer realm="gateway", error="invalid_token", error_description="unknown signing key"');
  t.equal((await get(tg, after)).statusCode, 200);
});

t.test('a second instance sharing the Redis prefix verifies tokens signed after a rotation by the first', async (t) => {
  const first = await startTestGateway(t);
  const second = await startTestGateway(t, { redisPrefix: first.redisPrefix });
  const client = await createClient(first, ['sales']);
  const early = await accessToken(second, client);
  t.equal((await get(first, early)).statusCode, 200, 'both instances share keys and clients');

  const rotated = await rotate(first);
  const token = await accessToken(first, client);
  t.equal(decodeProtectedHeader(token).kid, rotated.active_kid);
  const response = await get(second, token);
  t.equal(response.statusCode, 200, `the second instance verifies it: ${response.body}`);
  t.same(await jwksKids(second), [rotated.active_kid, rotated.previous_kid], 'and now publishes the rotated key set');
  t.equal((await get(second, early)).statusCode, 200, 'and still accepts tokens of the previous key');

  // Concurrent first requests with the new kid on a third instance: none is refused.
  const third = await startTestGateway(t, { redisPrefix: first.redisPrefix });
  const rotatedAgain = await rotate(first);
  const newest = await accessToken(first, client);
  t.equal(decodeProtectedHeader(newest).kid, rotatedAgain.active_kid);
  const statuses = (await Promise.all(Array.from({ length: 5 }, () => get(third, newest)))).map((r) => r.statusCode);
  t.same(statuses, [200, 200, 200, 200, 200]);
});
