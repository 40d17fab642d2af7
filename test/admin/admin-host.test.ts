// DNS rebinding: a page on another site whose name re-resolves to the admin listener's address
// sends that name as Host. The admin listener answers only IP-literal Hosts and the names in
// GATEWAY_ADMIN_HOSTNAMES; everything else, /metrics and the OpenAPI document included, gets 421.
import t from 'tap';
import { startTestGateway } from '../helpers/gateway.js';
import { listen, rawRequest } from '../helpers/http.js';

t.test('the admin listener checks Host before anything else', async (t) => {
  const tg = await startTestGateway(t, { config: { admin_hostnames: ['localhost', 'gateway-admin.internal'] } });
  const { adminPort } = await listen(tg);
  const get = (path: string, host: string) => rawRequest(adminPort, 'GET', path, { Host: host });
  for (const path of ['/metrics', '/admin/openapi.json', '/healthz', '/dashboard', '/admin/v1/clients']) {
    for (const host of ['attacker.example', `attacker.example:${adminPort}`, 'localhost.attacker.example', '127.0.0.1.nip.io', 'gateway-admin.internal.evil']) {
      // rawRequest writes its own Host line first; a second Host line would be a 400, so send it alone.
      const response = await hostOnly(adminPort, path, host);
      t.equal(response.status, 421, `${host} ${path}: ${response.body}`);
      const body = JSON.parse(response.body) as Record<string, string>;
      t.equal(body.error, 'host_not_allowed');
      t.same(Object.keys(body).sort(), ['error', 'message', 'request_id']);
    }
  }
  for (const host of [
    '127.0.0.1',
    `127.0.0.1:${adminPort}`,
    `[::1]:${adminPort}`,
    'localhost',
    `LOCALHOST:${adminPort}`,
    'gateway-admin.internal',
    '10.1.2.3:8081',
  ]) {
    const response = await hostOnly(adminPort, '/healthz', host);
    t.equal(response.status, 200, `${host}: ${response.body}`);
  }
  t.equal((await get('/healthz', '127.0.0.1')).status, 200);
});

t.test('an invalid admin host name in the settings stops the start, naming the setting', async (t) => {
  const { settingsFrom } = await import('../../gateway/config/settings.js');
  t.throws(
    () => settingsFrom({ admin_hostnames: ['http://admin.example'] }),
    /admin_hostnames \(config\) \/ GATEWAY_ADMIN_HOSTNAMES: "http:\/\/admin.example" is not a host name/,
  );
  t.throws(() => settingsFrom({}, { GATEWAY_ADMIN_HOSTNAMES: 'admin.example:8081' }), /GATEWAY_ADMIN_HOSTNAMES: "admin.example:8081" is not a host name/);
  t.same(settingsFrom({}, { GATEWAY_ADMIN_HOSTNAMES: 'Admin.Example, ops.internal' }).adminHostnames, ['admin.example', 'ops.internal']);
});

import { connect } from 'node:net';
function hostOnly(port: number, path: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
    socket.on('error', reject);
    socket.on('end', () => {
      const split = text.indexOf('\r\n\r\n');
      resolve({ status: Number(text.slice(9, 12)), body: text.slice(split + 4) });
    });
    socket.write(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
  });
}
