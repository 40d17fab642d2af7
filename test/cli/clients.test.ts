import t from 'tap';
import { startTestGateway } from '../helpers/gateway.js';
import { runCli } from '../helpers/cli.js';
import { listen } from '../helpers/http.js';
import { tokenRequest } from '../helpers/oauth.js';

t.test('gatewayctl creates, lists and deletes OAuth clients and rotates keys', async (t) => {
  const tg = await startTestGateway(t);
  const env = { GATEWAY_ADMIN_URL: (await listen(tg)).adminUrl, GATEWAY_ADMIN_TOKEN: tg.adminToken };

  const created = await runCli(['clients', 'create', '--name', 'cli client', '--scopes', 'sales,products', '--json'], env);
  t.equal(created.code, 0, created.stderr);
  const client = JSON.parse(created.stdout) as { client_id: string; client_secret: string; scopes: string[]; resource_server: boolean };
  t.same(client.scopes, ['sales', 'products']);
  t.equal(client.resource_server, false);
  const token = await tokenRequest(tg, { client_id: client.client_id, client_secret: client.client_secret });
  t.equal(token.statusCode, 200, 'the secret the CLI printed gets a token');

  const server = await runCli(['clients', 'create', '--name', 'orders api', '--scopes', 'sales', '--resource-server'], env);
  t.equal(server.code, 0, server.stderr);
  t.match(server.stdout, /^resource_server: yes \(may introspect tokens\)$/m);
  const serverId = /^client_id:\s+(\S+)$/m.exec(server.stdout)![1]!;

  const bound = await runCli(['clients', 'create', '--name', 'bound', '--scopes', 'sales', '--dpop-bound'], env);
  t.equal(bound.code, 0, bound.stderr);
  t.match(bound.stdout, /^dpop_bound:\s+yes \(each token request must carry a DPoP proof\)$/m);
  const boundId = /^client_id:\s+(\S+)$/m.exec(bound.stdout)![1]!;
  const boundSecret = /^client_secret:\s+(\S+)$/m.exec(bound.stdout)![1]!;
  const withoutProof = await tokenRequest(tg, { client_id: boundId, client_secret: boundSecret });
  t.equal(withoutProof.statusCode, 400, 'a --dpop-bound client gets no token without a DPoP proof');
  t.equal(withoutProof.json<{ error: string }>().error, 'invalid_dpop_proof');
  t.notMatch(server.stdout, /dpop_bound/, 'an unbound client shows no such line');

  const listed = await runCli(['clients', 'list'], env);
  t.equal(listed.code, 0);
  t.match(listed.stdout, /CLIENT_ID\s+NAME\s+SCOPES\s+RESOURCE_SERVER\s+CREATED/);
  t.match(listed.stdout, new RegExp(`${client.client_id}\\s+cli client\\s+sales products\\s+no\\s`));
  t.match(listed.stdout, new RegExp(`${serverId}\\s+orders api\\s+sales\\s+yes\\s`));
  t.notMatch(listed.stdout, client.client_secret, 'the list never shows the secret');

  const rotated = await runCli(['keys', 'rotate', '--json'], env);
  t.equal(rotated.code, 0, rotated.stderr);
  const kids = JSON.parse(rotated.stdout) as { active_kid: string; previous_kid: string };
  const jwks = (await tg.gateway.publicApp.inject({ url: '/.well-known/jwks.json' })).json<{ keys: { kid: string }[] }>();
  t.same(
    jwks.keys.map((k) => k.kid),
    [kids.active_kid, kids.previous_kid],
  );

  const deleted = await runCli(['clients', 'delete', client.client_id], env);
  t.equal(deleted.code, 0);
  t.equal(deleted.stdout.trim(), `Deleted client ${client.client_id}.`);
  const again = await runCli(['clients', 'delete', client.client_id], env);
  t.equal(again.code, 1);
  t.match(again.stderr, /404 not_found: No client with that client_id\./);
});

t.test('gatewayctl explains bad input and a wrong token', async (t) => {
  const tg = await startTestGateway(t, { store: 'embedded' });
  const url = (await listen(tg)).adminUrl;

  const badScope = await runCli(['clients', 'create', '--name', 'x', '--scopes', 'sales,root'], { GATEWAY_ADMIN_URL: url, GATEWAY_ADMIN_TOKEN: tg.adminToken });
  t.equal(badScope.code, 1);
  t.match(badScope.stderr, /400 validation_error: scopes: "root" is not one of: stats, products/);

  const wrongToken = await runCli(['clients', 'list'], { GATEWAY_ADMIN_URL: url, GATEWAY_ADMIN_TOKEN: 'x'.repeat(40) });
  t.equal(wrongToken.code, 1);
  t.match(wrongToken.stderr, /401 admin_unauthorized/);

  const unknownOption = await runCli(['clients', 'list', '--frobnicate'], { GATEWAY_ADMIN_URL: url, GATEWAY_ADMIN_TOKEN: tg.adminToken });
  t.equal(unknownOption.code, 2);
  t.match(unknownOption.stderr, /Unknown option '--frobnicate'/);

  const unreachable = await runCli(['clients', 'list'], { GATEWAY_ADMIN_URL: 'http://127.0.0.1:1', GATEWAY_ADMIN_TOKEN: tg.adminToken });
  t.equal(unreachable.code, 1);
  t.match(unreachable.stderr, /Cannot reach the admin API at http:\/\/127\.0\.0\.1:1/);
});
