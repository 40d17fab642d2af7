// The client address a service account's allow-list is checked against: the socket peer, or the
// X-Forwarded-For hop a trusted proxy vouches for; IPv4-mapped IPv6 peers count as IPv4.
import { generateKeyPairSync } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import t, { type Test } from 'tap';
import { sshPublicKeyLine } from '../../gateway/signing/index.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { adminInject, authFailures, createServiceAccount, signedInject, type TestServiceAccount } from '../helpers/signing.js';

async function expectForbiddenAddress(t: Test, tg: TestGateway, send: () => Promise<LightMyRequestResponse>, address: string): Promise<void> {
  const before = await authFailures(tg, 'ip_not_allowed');
  const contacted = tg.upstreams.banking.received.length;
  const response = await send();
  t.equal(response.statusCode, 403, response.body);
  const body = response.json();
  t.equal(body.error, 'ip_not_allowed');
  t.equal(body.message, `The address ${address} is not in this service account's allow-list.`);
  t.type(body.request_id, 'string');
  t.equal(await authFailures(tg, 'ip_not_allowed'), before + 1);
  t.equal(tg.upstreams.banking.received.length, contacted, 'the upstream was not contacted');
}

async function expectForwarded(t: Test, tg: TestGateway, send: () => Promise<LightMyRequestResponse>, address: string): Promise<void> {
  const response = await send();
  t.equal(response.statusCode, 200, response.body);
  t.equal(response.json().headers['x-forwarded-for'], address, 'the upstream learns the authorized client address');
}

const get = (tg: TestGateway, sa: TestServiceAccount, remoteAddress: string, forwardedFor?: string) => () =>
  signedInject(tg, sa, { method: 'GET', url: '/v1/balance', remoteAddress, ...(forwardedFor ? { headers: { 'x-forwarded-for': forwardedFor } } : {}) });

t.test('without trusted proxies the socket address decides, whatever X-Forwarded-For says', async (t) => {
  const tg = await startTestGateway(t);
  const sa = await createServiceAccount(tg, { permissions: ['view_balance'], allowed_ips: ['10.1.0.0/16', '2001:db8:1::/48', '198.51.100.7'] });
  await expectForwarded(t, tg, get(tg, sa, '10.1.2.3'), '10.1.2.3');
  await expectForwarded(t, tg, get(tg, sa, '198.51.100.7'), '198.51.100.7');
  await expectForwarded(t, tg, get(tg, sa, '2001:db8:1::5'), '2001:db8:1::5');
  await expectForbiddenAddress(t, tg, get(tg, sa, '10.2.0.1'), '10.2.0.1');
  await expectForbiddenAddress(t, tg, get(tg, sa, '198.51.100.8'), '198.51.100.8');
  await expectForbiddenAddress(t, tg, get(tg, sa, '2001:db8:2::5'), '2001:db8:2::5');
  // A forged header from an untrusted peer changes nothing.
  await expectForbiddenAddress(t, tg, get(tg, sa, '10.2.0.1', '10.1.2.3'), '10.2.0.1');
});

t.test('IPv4-mapped IPv6 peers count as their IPv4 address', async (t) => {
  const tg = await startTestGateway(t);
  const sa = await createServiceAccount(tg, { permissions: ['view_balance'], allowed_ips: ['10.1.0.0/16'] });
  await expectForwarded(t, tg, get(tg, sa, '::ffff:10.1.0.7'), '10.1.0.7');
  await expectForbiddenAddress(t, tg, get(tg, sa, '::ffff:10.2.0.1'), '10.2.0.1');
  const mappedList = await createServiceAccount(tg, { permissions: ['view_balance'], allowed_ips: ['::ffff:192.0.2.1'] });
  t.same(mappedList.account.allowed_ips, ['192.0.2.1'], 'a mapped entry is stored as the IPv4 address it enforces');
  await expectForwarded(t, tg, get(tg, mappedList, '192.0.2.1'), '192.0.2.1');
});

t.test('behind a trusted proxy, the right-most untrusted X-Forwarded-For hop decides', async (t) => {
  const tg = await startTestGateway(t, { config: { trusted_proxies: ['192.0.2.0/24'] } });
  const sa = await createServiceAccount(tg, { permissions: ['view_balance'], allowed_ips: ['10.1.0.0/16'] });
  await expectForwarded(t, tg, get(tg, sa, '192.0.2.10', '10.1.0.5'), '10.1.0.5');
  await expectForwarded(t, tg, get(tg, sa, '192.0.2.10', '10.9.9.9, 10.1.0.5, 192.0.2.11'), '10.1.0.5');
  // The client put an allowed address on the left; the proxy appended the real one.
  await expectForbiddenAddress(t, tg, get(tg, sa, '192.0.2.10', '10.1.0.5, 10.9.9.9'), '10.9.9.9');
  // The same header from a peer that is not a trusted proxy is ignored.
  await expectForbiddenAddress(t, tg, get(tg, sa, '203.0.113.9', '10.1.0.5'), '203.0.113.9');
  await expectForbiddenAddress(t, tg, get(tg, sa, '::ffff:203.0.113.9', '10.1.0.5'), '203.0.113.9');
});

t.test('the default allow-list admits any address', async (t) => {
  const tg = await startTestGateway(t);
  const sa = await createServiceAccount(tg, { permissions: ['view_balance'] });
  t.same(sa.account.allowed_ips, ['0.0.0.0/0', '::/0']);
  await expectForwarded(t, tg, get(tg, sa, '203.0.113.9'), '203.0.113.9');
  await expectForwarded(t, tg, get(tg, sa, '2001:db8::9'), '2001:db8::9');
});

t.test('an entry with host bits set is refused, showing the network it would mean', async (t) => {
  const tg = await startTestGateway(t);
  const cases: [string, string][] = [
    ['203.0.113.7/0', '"203.0.113.7/0" has host bits set; the network is 0.0.0.0/0 — write that, or 203.0.113.7/32 for the single address'],
    ['::ffff:203.0.113.7/96', '"::ffff:203.0.113.7/96" has host bits set; the network is 0.0.0.0/0 — write that, or 203.0.113.7/32 for the single address'],
    ['10.1.2.3/16', '"10.1.2.3/16" has host bits set; the network is 10.1.0.0/16 — write that, or 10.1.2.3/32 for the single address'],
    ['2001:db8::1/32', '"2001:db8::1/32" has host bits set; the network is 2001:db8::/32 — write that, or 2001:db8::1/128 for the single address'],
  ];
  for (const [entry, message] of cases) {
    const response = await adminInject(tg, {
      method: 'POST',
      url: '/admin/v1/service-accounts',
      payload: {
        description: 'x',
        public_key: sshPublicKeyLine(generateKeyPairSync('ed25519').privateKey),
        permissions: ['view_balance'],
        allowed_ips: [entry],
      },
    });
    t.equal(response.statusCode, 400, response.body);
    const body = response.json();
    t.same(body, { error: 'validation_error', message: `allowed_ips: ${message}`, request_id: body.request_id, field: 'allowed_ips' });
  }
  t.same((await adminInject(tg, { method: 'GET', url: '/admin/v1/service-accounts' })).json().service_accounts, [], 'nothing was written');
  const exact = await createServiceAccount(tg, { allowed_ips: ['0.0.0.0/0', '203.0.113.7/32', '10.1.0.0/16'] });
  t.same(exact.account.allowed_ips, ['0.0.0.0/0', '203.0.113.7/32', '10.1.0.0/16'], 'the networks written without host bits are kept');
});
