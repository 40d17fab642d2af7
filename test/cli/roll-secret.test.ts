// gatewayctl clients roll-secret: prints the new secret once; --grace-seconds keeps the old one working for a while.
import t from 'tap';
import { startTestGateway } from '../helpers/gateway.js';
import { runCli } from '../helpers/cli.js';
import { listen } from '../helpers/http.js';
import { createClient, tokenRequest } from '../helpers/oauth.js';

t.test('gatewayctl clients roll-secret rolls the secret, with or without a grace period', async (t) => {
  const tg = await startTestGateway(t, { store: 'embedded' });
  const env = { GATEWAY_ADMIN_URL: (await listen(tg)).adminUrl, GATEWAY_ADMIN_TOKEN: tg.adminToken };
  const client = await createClient(tg, ['sales']);
  const status = async (secret: string) => (await tokenRequest(tg, { client_id: client.client_id, client_secret: secret })).statusCode;

  const graced = await runCli(['clients', 'roll-secret', client.client_id, '--grace-seconds', '600'], env);
  t.equal(graced.code, 0, graced.stderr);
  t.match(graced.stdout, new RegExp(`^client_id:\\s+${client.client_id}$`, 'm'));
  const secret = /^client_secret:\s+(\S+)$/m.exec(graced.stdout)![1]!;
  t.equal(graced.stdout.split(secret).length, 2, 'the secret is printed once');
  t.match(graced.stdout, /^old secret:\s+works until \d{4}-\d\d-\d\dT\S+Z$/m);
  t.match(graced.stdout, /shown only now/);
  t.equal(await status(secret), 200, 'the printed secret works');
  t.equal(await status(client.client_secret), 200, 'the old one too, during the grace period');

  const json = await runCli(['clients', 'roll-secret', client.client_id, '--json'], env);
  t.equal(json.code, 0, json.stderr);
  const rolled = JSON.parse(json.stdout) as { client_id: string; client_secret: string; previous_secret_expires_at: string | null };
  t.equal(rolled.client_id, client.client_id);
  t.equal(rolled.previous_secret_expires_at, null, 'no --grace-seconds: no grace period');
  t.equal(await status(rolled.client_secret), 200);
  t.equal(await status(secret), 401, 'the secret before it is refused at once');
  t.equal(await status(client.client_secret), 401, 'and the first one too');

  const plain = await runCli(['clients', 'roll-secret', client.client_id, '--grace-seconds', '0'], env);
  t.equal(plain.code, 0, plain.stderr);
  t.match(plain.stdout, /^old secret:\s+refused from now on$/m);

  const listed = await runCli(['clients', 'list', '--json'], env);
  // The method's name (RFC 7591) says client_secret; no secret may be shown.
  t.notMatch(listed.stdout.replaceAll('"token_endpoint_auth_method": "client_secret_basic"', ''), /client_secret/, 'the list never shows a secret');
});

t.test('gatewayctl clients roll-secret explains bad input', async (t) => {
  const tg = await startTestGateway(t, { store: 'embedded' });
  const env = { GATEWAY_ADMIN_URL: (await listen(tg)).adminUrl, GATEWAY_ADMIN_TOKEN: tg.adminToken };
  const client = await createClient(tg, ['sales']);

  const missing = await runCli(['clients', 'roll-secret'], env);
  t.equal(missing.code, 2, 'no CLIENT_ID is a usage error');

  for (const value of ['-1', '1.5', 'soon']) {
    const bad = await runCli(['clients', 'roll-secret', client.client_id, '--grace-seconds', value], env);
    t.equal(bad.code, 2, `--grace-seconds ${value}`);
    t.match(bad.stderr, /grace-seconds/);
  }

  const tooLong = await runCli(['clients', 'roll-secret', client.client_id, '--grace-seconds', '604801'], env);
  t.equal(tooLong.code, 1);
  t.match(tooLong.stderr, /400 validation_error: grace_seconds: must be a whole number of seconds from 0 to 604800/);

  const unknown = await runCli(['clients', 'roll-secret', '00000000-0000-4000-8000-000000000000'], env);
  t.equal(unknown.code, 1);
  t.match(unknown.stderr, /404 not_found: No client with that client_id\./);

  t.equal((await tokenRequest(tg, { client_id: client.client_id, client_secret: client.client_secret })).statusCode, 200, 'nothing was rolled');
});
