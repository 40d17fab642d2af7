// Retirement is immediate everywhere: two real gateway processes share one Redis; after the
// retirement answers on one, the other refuses the retired key's token with 401 on the very next
// request, keeps accepting the active key's, and drops the key from its JWKS when the store
// announces the change (the propagation of a rotation: well under a second).
import { decodeProtectedHeader } from 'jose';
import { Redis } from 'ioredis';
import t from 'tap';
import { startGatewayProcess, type GatewayProcess } from '../helpers/gateway-process.js';
import { until } from '../helpers/poll.js';
import { bearerToken, sharedRedisDeployment } from '../helpers/process-ops.js';
import { TEST_REDIS_URL } from '../helpers/redis.js';
import { tempDir } from '../helpers/redis-topology.js';

t.test('after the retirement answers on one instance, the other refuses the key at once', async (t) => {
  const deployment = await sharedRedisDeployment(t, 'retire');
  // One issuer for both, as behind one load balancer: each accepts the other's tokens.
  const env = { ...deployment.env, GATEWAY_LOG_LEVEL: 'info', GATEWAY_ISSUER: 'http://gateway.test' };
  const [first, second] = await Promise.all([
    startGatewayProcess(t, { ...env, GATEWAY_DATA_DIR: tempDir(t, 'gw-a') }),
    startGatewayProcess(t, { ...env, GATEWAY_DATA_DIR: tempDir(t, 'gw-b') }),
  ]);
  const admin = { authorization: `Bearer ${deployment.adminToken}` };
  const sales = (gateway: GatewayProcess, token: string) => fetch(`${gateway.publicUrl}/v1/sales`, { headers: { authorization: `Bearer ${token}` } });
  const jwksKids = async (gateway: GatewayProcess) =>
    ((await (await fetch(`${gateway.publicUrl}/.well-known/jwks.json`)).json()) as { keys: Array<{ kid: string }> }).keys.map((k) => k.kid);

  const stolen = await bearerToken(first, deployment.adminToken, ['sales']);
  const stolenKid = decodeProtectedHeader(stolen).kid!;
  const rotated = await fetch(`${first.adminUrl}/admin/v1/signing-keys/rotate`, { method: 'POST', headers: admin });
  t.equal(rotated.status, 200);
  const { active_kid: activeKid } = (await rotated.json()) as { active_kid: string };
  await until(async () => (await jwksKids(second))[0] === activeKid, 'the second instance follows the rotation');
  const current = await bearerToken(second, deployment.adminToken, ['sales']);
  t.equal(decodeProtectedHeader(current).kid, activeKid);
  for (const gateway of [first, second])
    t.equal((await sales(gateway, stolen)).status, 200, 'both instances verify (and cache) the rotated-out key before the retirement');

  const redis = new Redis(TEST_REDIS_URL);
  t.teardown(() => redis.disconnect());
  const storedBefore = (await redis.get(`${deployment.env.GATEWAY_REDIS_KEY_PREFIX}meta:jwt-signing-keys`))!;
  const privatePart = (JSON.parse(storedBefore) as { retired: Array<{ kid: string; privateJwk: { d: string } }> }).retired.find((k) => k.kid === stolenKid)!
    .privateJwk.d;

  const retired = await fetch(`${first.adminUrl}/admin/v1/signing-keys/${stolenKid}/retire`, { method: 'POST', headers: admin });
  t.equal(retired.status, 200);
  t.match(await retired.json(), { kid: stolenKid, state: 'retired', already_retired: false });

  // No wait: the very next request to the second instance.
  const refused = await sales(second, stolen);
  t.equal(refused.status, 401, 'the second instance refuses the retired key at once');
  t.equal(refused.headers.get('www-authenticate'), 'Bearer realm="gateway", error="invalid_token", error_description="the signing key was retired"');
  t.equal(((await refused.json()) as { error: string }).error, 'invalid_token');
  t.equal((await sales(first, stolen)).status, 401, 'and so does the first');
  for (const gateway of [second, first]) t.equal((await sales(gateway, current)).status, 200, "the active key's token still passes");

  const waited = await until(async () => !(await jwksKids(second)).includes(stolenKid), 'the second instance drops the key from its JWKS');
  t.ok(waited < 1000, `the second instance's JWKS dropped it after ${waited} ms`);
  t.same(await jwksKids(first), [activeKid], 'the first instance published it no more when it answered');

  t.notOk(
    (await redis.get(`${deployment.env.GATEWAY_REDIS_KEY_PREFIX}meta:jwt-signing-keys`))!.includes(privatePart),
    'the store no longer holds the private key',
  );
  for (const gateway of [first, second]) t.notOk(gateway.output().includes(privatePart), 'no log line carries key material');
  t.match(first.output(), new RegExp(`"audit":"credential.retired","kind":"signing_key","kid":"${stolenKid}","by":"admin-token"`), 'the retirement is audited');
});
