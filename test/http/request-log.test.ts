// The request log: one line per request (Fastify's "incoming request" / "request completed" pair is
// off), with method, path without its query, status, duration, outcome, route and who it was from,
// and never a credential; probes and /metrics at debug; ISO time and level names with
// log_format iso; and behind an edge proxy, a refused signature's base at debug.
import { generateKeyPairSync } from 'node:crypto';
import t from 'tap';
import { decisionConfig } from '../decision/decision-policies.js';
import { startTestGateway } from '../helpers/gateway.js';
import { accessToken, createClient } from '../helpers/oauth.js';
import { BANKING_HOST, createServiceAccount, signedHeaders, signedInject } from '../helpers/signing.js';

type Line = Record<string, unknown> & { msg?: string; level?: number | string; time?: number | string };

t.test('one line per request, with what the gateway made of it and nothing secret', async (t) => {
  const tg = await startTestGateway(t, { config: { log_level: 'debug' } });
  const client = await createClient(tg, ['sales']);
  const token = await accessToken(tg, client);
  const sa = await createServiceAccount(tg, { permissions: ['view_balance'] });
  tg.logs.lines.length = 0;

  await tg.gateway.publicApp.inject({ method: 'GET', url: '/v1/sales?card=4111111111111111', headers: { authorization: `Bearer ${token}` } });
  await tg.gateway.publicApp.inject({ method: 'GET', url: '/v1/sales', headers: { authorization: 'Bearer nope' } });
  await signedInject(tg, sa, { method: 'GET', url: '/v1/balance' });
  await tg.gateway.adminApp.inject({ method: 'GET', url: '/healthz' });
  await tg.gateway.adminApp.inject({ method: 'GET', url: '/admin/v1/clients', headers: { authorization: `Bearer ${tg.adminToken}` } });

  const lines = tg.logs.lines.map((line) => JSON.parse(line) as Line);
  t.notOk(
    lines.some((line) => line.msg === 'incoming request' || line.msg === 'request completed'),
    "Fastify's pair is off",
  );
  const requests = lines.filter((line) => line.msg === 'request');
  t.equal(requests.length, 5, 'one line for each request');
  const [allowed, refused, signed, probe, admin] = requests;
  t.match(allowed, { level: 30, method: 'GET', path: '/v1/sales', status: 200, outcome: 'ok', route: 'public:GET /v1/sales', client_id: client.client_id });
  t.type(allowed!.duration_ms, 'number');
  t.match(refused, { status: 401, outcome: 'invalid_token', route: 'public:GET /v1/sales' });
  t.match(signed, { status: 200, route: 'banking:GET /v1/balance', service_account_id: sa.account.id });
  t.match(probe, { level: 20, path: '/healthz', status: 200 }, 'a probe at debug');
  t.match(admin, { level: 30, path: '/admin/v1/clients', actor: 'admin-token' }, 'an admin call names who acted');
  const text = tg.logs.text;
  for (const secret of [token, tg.adminToken, '4111111111111111', sa.account.access_id]) t.notOk(text.includes(secret), 'no credential or query in the log');
});

t.test('log_format iso: ISO 8601 time and level names', async (t) => {
  const tg = await startTestGateway(t, { store: 'embedded', config: { log_format: 'iso' } });
  await tg.gateway.adminApp.inject({ method: 'GET', url: '/admin/v1/clients', headers: { authorization: `Bearer ${tg.adminToken}` } });
  const line = tg.logs.lines.map((l) => JSON.parse(l) as Line).find((l) => l.msg === 'request')!;
  t.equal(line.level, 'info');
  t.match(line.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
});

t.test("behind an edge proxy, a refused signature's base is logged at debug (the edge drops the body)", async (t) => {
  const tg = await startTestGateway(t, { config: { ...decisionConfig(t), log_level: 'debug' } });
  const sa = await createServiceAccount(tg, { permissions: ['view_balance'] });
  const headers = signedHeaders({ ...sa, privateKey: generateKeyPairSync('ed25519').privateKey }, { method: 'GET', url: '/v1/balance' });
  const response = await tg.gateway.decisionListener!.inject({
    method: 'GET',
    url: '/nginx',
    headers: {
      ...headers,
      host: BANKING_HOST,
      'x-original-method': 'GET',
      'x-original-uri': '/v1/balance',
      'x-original-protocol': 'HTTP/1.1',
      'x-forwarded-for': '198.51.100.7',
    },
  });
  t.equal(response.statusCode, 401);
  const line = tg.logs.lines.map((l) => JSON.parse(l) as Line).find((l) => l.msg === 'signature base of a refused request');
  t.match(line, { level: 20, signature_base: /^"@method": GET\n"@authority": banking\.test/ });
});
