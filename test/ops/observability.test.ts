// What SREs read: build info and per-stage histograms in /metrics, audit events as structured log
// lines (never with a secret), and the W3C trace id of a request in its log lines while the
// traceparent header travels on to the upstream unchanged.
import t from 'tap';
import { startTestGateway } from '../helpers/gateway.js';
import { accessToken, createClient, tokenRequest } from '../helpers/oauth.js';
import { adminInject, createServiceAccount, signedInject } from '../helpers/signing.js';

const auditLines = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.audit !== undefined);

t.test('metrics: build info and stage histograms', async (t) => {
  const tg = await startTestGateway(t);
  const sa = await createServiceAccount(tg, { permissions: ['view_balance'] });
  t.equal((await signedInject(tg, sa, { method: 'GET', url: '/v1/balance' })).statusCode, 200);
  const metrics = (await tg.gateway.adminApp.inject({ method: 'GET', url: '/metrics' })).body;
  t.match(metrics, /^gateway_build_info\{version="\d+\.\d+\.\d+",node_version="v\d+\.\d+\.\d+"\} 1$/m);
  for (const stage of ['authentication', 'store', 'upstream']) {
    const count = Number(new RegExp(`^gateway_stage_duration_seconds_count\\{stage="${stage}"\\} (\\d+)`, 'm').exec(metrics)?.[1]);
    t.ok(count >= 1, `${stage} observed (${count})`);
  }
});

t.test('metric names follow the Prometheus conventions', async (t) => {
  const tg = await startTestGateway(t, { store: 'embedded' });
  const body = (await tg.gateway.adminApp.inject({ method: 'GET', url: '/metrics' })).body;
  const ours = [...body.matchAll(/^# TYPE (gateway_\S+) (\S+)$/gm)].map(([, name, type]) => ({ name: name!, type: type! }));
  t.ok(ours.length >= 8, `${ours.length} gateway metrics`);
  for (const { name, type } of ours) {
    t.match(name, /^gateway_[a-z][a-z0-9]*(_[a-z0-9]+)*$/, `${name}: snake_case under the gateway_ namespace`);
    if (type === 'counter') t.match(name, /_total$/, `${name}: a counter ends in _total`);
    else t.notMatch(name, /_total$/, `${name}: only counters end in _total`);
    if (type === 'histogram') t.match(name, /_(seconds|bytes)$/, `${name}: a histogram names its base unit`);
    if (/duration|latency|time/.test(name)) t.match(name, /_seconds(_total)?$/, `${name}: times are in seconds`);
    t.match(body, new RegExp(`^# HELP ${name} \\S`, 'm'), `${name}: has help text`);
  }
});

t.test('audit events: credentials created, deleted, rotated; sign-ins; denied requests', async (t) => {
  const tg = await startTestGateway(t);
  const client = await createClient(tg, ['sales']);
  const token = await accessToken(tg, client);
  const sa = await createServiceAccount(tg, { permissions: ['view_balance'] });
  t.equal((await adminInject(tg, { method: 'POST', url: '/admin/v1/signing-keys/rotate' })).statusCode, 200);
  t.equal((await adminInject(tg, { method: 'DELETE', url: `/admin/v1/service-accounts/${sa.account.id}` })).statusCode, 204);
  t.equal((await adminInject(tg, { method: 'DELETE', url: `/admin/v1/clients/${client.client_id}` })).statusCode, 204);
  t.equal(
    (await tg.gateway.adminApp.inject({ method: 'GET', url: '/admin/v1/clients', headers: { authorization: 'Bearer wrong-token-wrong-token-wrong-token' } }))
      .statusCode,
    401,
  );
  t.equal((await tg.gateway.adminApp.inject({ method: 'POST', url: '/dashboard/api/sign-in', payload: { token: 'not-the-admin-token' } })).statusCode, 401);
  t.equal((await tg.gateway.adminApp.inject({ method: 'POST', url: '/dashboard/api/sign-in', payload: { token: tg.adminToken } })).statusCode, 200);
  t.equal(
    (await tg.gateway.publicApp.inject({ method: 'GET', url: '/v1/sales', headers: { authorization: `Bearer ${token}` } })).statusCode,
    401,
    "the deleted client's token",
  );
  t.equal((await tokenRequest(tg, { client_id: client.client_id, client_secret: 'wrong' })).statusCode, 401);

  const events = auditLines(tg.logs.text);
  const find = (audit: string, match: Record<string, unknown>) => events.find((e) => e.audit === audit && Object.entries(match).every(([k, v]) => e[k] === v));
  t.ok(find('credential.created', { kind: 'oauth_client', client_id: client.client_id, by: 'admin-token' }), 'client created');
  t.ok(find('credential.created', { kind: 'service_account', service_account_id: sa.account.id }), 'service account created');
  t.ok(find('credential.rotated', { kind: 'signing_key' }), 'signing key rotated');
  t.ok(find('credential.deleted', { kind: 'service_account', service_account_id: sa.account.id }), 'service account deleted');
  t.ok(find('credential.deleted', { kind: 'oauth_client', client_id: client.client_id }), 'client deleted');
  t.ok(find('admin.denied', { reason: 'wrong admin token' }), 'wrong admin token');
  t.ok(find('admin.sign_in_failed', { method: 'token' }), 'failed dashboard sign-in');
  t.ok(find('admin.sign_in', { dashboard_user: 'admin', method: 'token' }), 'dashboard sign-in');
  t.ok(find('request.denied', { reason: 'invalid_token', scheme: 'bearer', status: 401 }), 'a denied proxied request, by reason');
  t.ok(find('request.denied', { reason: 'auth_error', scheme: 'client', status: 401 }), 'a denied token request');
  const text = JSON.stringify(events);
  for (const secret of [client.client_secret, token, sa.account.access_id, tg.adminToken])
    t.notOk(text.includes(secret), 'no secret, token or full Access ID in an audit event');
});

t.test("traceparent: forwarded unchanged, its trace id in the request's log lines", async (t) => {
  const tg = await startTestGateway(t);
  const client = await createClient(tg, ['sales']);
  const token = await accessToken(tg, client);
  const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
  const response = await tg.gateway.publicApp.inject({
    method: 'GET',
    url: '/v1/sales',
    headers: { authorization: `Bearer ${token}`, traceparent, tracestate: 'vendor=1' },
  });
  t.equal(response.statusCode, 200);
  const received = tg.upstreams.public.received.at(-1)!.headers;
  t.equal(received.traceparent, traceparent, 'the upstream receives the same traceparent');
  t.equal(received.tracestate, 'vendor=1');
  const lines = tg.logs.lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.trace_id !== undefined);
  t.ok(lines.length > 0 && lines.every((l) => l.trace_id === '4bf92f3577b34da6a3ce929d0e0e4736'), "the request's log lines carry its trace id");

  const invalid = await tg.gateway.publicApp.inject({
    method: 'GET',
    url: '/v1/sales',
    headers: { authorization: `Bearer ${token}`, traceparent: '00-00000000000000000000000000000000-00f067aa0ba902b7-01' },
  });
  t.equal(invalid.statusCode, 200);
  t.notOk(tg.logs.text.includes('00000000000000000000000000000000'), 'an invalid traceparent is not logged');
});
