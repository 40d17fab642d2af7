// gatewayctl keys list | rotate | retire, run against a test gateway's admin listener.
import { randomUUID } from 'node:crypto';
import { decodeProtectedHeader } from 'jose';
import t from 'tap';
import { runCli } from '../helpers/cli.js';
import { startTestGateway } from '../helpers/gateway.js';
import { listen } from '../helpers/http.js';
import { accessToken, createClient } from '../helpers/oauth.js';

t.test('gatewayctl keys list, rotate and retire', async (t) => {
  const tg = await startTestGateway(t);
  const env = { GATEWAY_ADMIN_URL: (await listen(tg)).adminUrl, GATEWAY_ADMIN_TOKEN: tg.adminToken };
  const client = await createClient(tg, ['sales']);
  const stolen = await accessToken(tg, client);
  const stolenKid = decodeProtectedHeader(stolen).kid!;

  const rotated = await runCli(['keys', 'rotate', '--json'], env);
  t.equal(rotated.code, 0, rotated.stderr);
  const { active_kid: activeKid } = JSON.parse(rotated.stdout) as { active_kid: string };

  const listed = await runCli(['keys', 'list'], env);
  t.equal(listed.code, 0, listed.stderr);
  t.match(listed.stdout, /^KID\s+ALG\s+STATE\s+CREATED\s+VERIFIES_UNTIL\s+RETIRED\n/);
  t.match(listed.stdout, new RegExp(`^${activeKid}\\s+EdDSA\\s+active\\s+\\S+Z\\s+-\\s+-$`, 'm'));
  t.match(listed.stdout, new RegExp(`^${stolenKid}\\s+EdDSA\\s+rotated_out\\s+\\S+Z\\s+\\S+Z\\s+-$`, 'm'));

  const retired = await runCli(['keys', 'retire', stolenKid], env);
  t.equal(retired.code, 0, retired.stderr);
  t.equal(retired.stdout, `Retired key ${stolenKid}: the tokens it signed are refused on every instance from now on, and it has left the JWKS.\n`);
  const refused = await tg.gateway.publicApp.inject({ url: '/v1/sales', headers: { authorization: `Bearer ${stolen}` } });
  t.equal(refused.statusCode, 401, 'the token of the retired key is refused');
  const jwks = (await tg.gateway.publicApp.inject({ url: '/.well-known/jwks.json' })).json<{ keys: Array<{ kid: string }> }>();
  t.same(
    jwks.keys.map((k) => k.kid),
    [activeKid],
  );

  const again = await runCli(['keys', 'retire', stolenKid, '--json'], env);
  t.equal(again.code, 0, again.stderr);
  t.match(JSON.parse(again.stdout), { kid: stolenKid, state: 'retired', already_retired: true });
  const againText = await runCli(['keys', 'retire', stolenKid], env);
  t.match(againText.stdout, new RegExp(`^Key ${stolenKid} was already retired \\(at \\S+Z\\); nothing changed\\.\\n$`));

  const listedAfter = await runCli(['keys', 'list', '--json'], env);
  t.equal(listedAfter.code, 0, listedAfter.stderr);
  t.same(
    (JSON.parse(listedAfter.stdout) as Array<{ kid: string; state: string }>).map((k) => [k.kid, k.state]),
    [
      [activeKid, 'active'],
      [stolenKid, 'retired'],
    ],
  );

  const active = await runCli(['keys', 'retire', activeKid], env);
  t.equal(active.code, 1);
  t.equal(
    active.stderr,
    `gatewayctl: 409 signing_key_active: ${activeKid} is the active signing key: rotate first (POST /admin/v1/signing-keys/rotate, gatewayctl keys rotate), then retire it.\n`,
  );

  const unknown = await runCli(['keys', 'retire', randomUUID()], env);
  t.equal(unknown.code, 1);
  t.match(unknown.stderr, /^gatewayctl: 404 not_found: No signing key with that kid/);

  const malformed = await runCli(['keys', 'retire', 'key-1'], env);
  t.equal(malformed.code, 1);
  t.equal(
    malformed.stderr,
    'gatewayctl: 400 validation_error: kid: must be the kid of a signing key: a lower-case UUID, as GET /admin/v1/signing-keys lists it\n',
  );

  const missing = await runCli(['keys', 'retire'], env);
  t.equal(missing.code, 2, 'a missing KID is a mistake in the command line');
  t.match(missing.stderr, /KID/);
});
