// Deletion is immediate everywhere: two real gateway processes share one Redis; after DELETE
// returns on one, the Access ID is refused with 401 on both.
import { generateKeyPairSync } from 'node:crypto';
import t from 'tap';
import { signRequest, sshPublicKeyLine } from '../../gateway/signing/index.js';
import { startGatewayProcess, type GatewayProcess } from '../helpers/gateway-process.js';
import { sharedRedisDeployment } from '../helpers/process-ops.js';
import { tempDir } from '../helpers/redis-topology.js';

t.test('after DELETE returns, every instance sharing the Redis refuses the Access ID', async (t) => {
  const deployment = await sharedRedisDeployment(t, 'two');
  const { adminToken } = deployment;
  const env = { ...deployment.env, GATEWAY_LOG_LEVEL: 'warn' };
  const [first, second] = await Promise.all([
    startGatewayProcess(t, { ...env, GATEWAY_DATA_DIR: tempDir(t, 'gw-a') }),
    startGatewayProcess(t, { ...env, GATEWAY_DATA_DIR: tempDir(t, 'gw-b') }),
  ]);

  const { privateKey } = generateKeyPairSync('ed25519');
  const admin = { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' };
  const created = await fetch(`${first.adminUrl}/admin/v1/service-accounts`, {
    method: 'POST',
    headers: admin,
    body: JSON.stringify({ description: 'two instances', public_key: sshPublicKeyLine(privateKey), permissions: ['view_balance'] }),
  });
  t.equal(created.status, 201);
  const account = (await created.json()) as { id: string; access_id: string };

  const balance = (gateway: GatewayProcess) => {
    const url = `${gateway.publicUrl}/v1/balance`;
    return fetch(url, { headers: signRequest({ method: 'GET', url, accessId: account.access_id, privateKey }) });
  };
  t.equal((await balance(first)).status, 200, 'the first instance accepts the account');
  t.equal((await balance(second)).status, 200, 'the second instance accepts the account');

  const deleted = await fetch(`${first.adminUrl}/admin/v1/service-accounts/${account.id}`, {
    method: 'DELETE',
    headers: { authorization: admin.authorization },
  });
  t.equal(deleted.status, 204);

  const contacted = deployment.banking.received.length;
  for (const [name, gateway] of [
    ['second', second],
    ['first', first],
  ] as const) {
    const refused = await balance(gateway);
    t.equal(refused.status, 401, `the ${name} instance refuses the deleted account at once`);
    const body = (await refused.json()) as { error: string; message: string; request_id: string };
    t.equal(body.error, 'unknown_access_id');
    t.equal(body.message, 'The Access ID does not belong to an active service account.');
    t.match(refused.headers.get('accept-signature'), /^sig1=\("@method" "@authority" "@path" "@query" "x-access-id"\);created;nonce;keyid="/);
  }
  t.equal(deployment.banking.received.length, contacted, 'the upstream was not contacted after the deletion');
  for (const gateway of [first, second]) t.notOk(gateway.output().includes(account.access_id), 'no log line carries the full Access ID');
});
