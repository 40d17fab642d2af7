// Contract tests of the gRPC decision listener (envoy.service.auth.v3.Authorization/Check) through a
// real grpc-js client built from the same protos, with the CheckRequests Envoy's ext_authz filter
// sends (envoy-check.ts): what an allowed answer carries (the identity headers Envoy copies, the
// headers it removes, the dynamic metadata), and every refusal of the proxy's suites answered with
// the proxy's status, JSON error code and headers, and a google.rpc code. No request reaches an
// upstream: the decision only answers.
import { status as rpc } from '@grpc/grpc-js';
import t, { type Test } from 'tap';
import { CLIENT_ROUTING_HEADERS, CONSUMED_CREDENTIAL_HEADERS } from '../../gateway/pipeline/mutate.js';
import type { TestGateway } from '../helpers/gateway.js';
import { accessToken, createClient } from '../helpers/oauth.js';
import { adminInject, authFailures, BANKING_HOST, createServiceAccount, signedHeaders } from '../helpers/signing.js';
import { DELEGATED_ROUTE, LIMITED_ROUTE } from './decision-policies.js';
import { signed } from './edge.js';
import { allowed, answered, envoyCheck, metadataOf, refused, startGrpcGateway } from './envoy-check.js';

function untouched(t: Test, tg: TestGateway): void {
  t.equal(tg.upstreams.public.received.length + tg.upstreams.banking.received.length, 0, 'nothing reached an upstream');
}

t.test('Bearer: allowed with the identity Envoy copies upstream, the rule’s headers removed, the principal as metadata', async (t) => {
  const { tg, client } = await startGrpcGateway(t, {}, { store: 'embedded' });
  const oauthClient = await createClient(tg, ['sales'], { account_id: 'acct-7' });
  const headers = {
    authorization: `Bearer ${await accessToken(tg, oauthClient)}`,
    'x-gateway-client-id': 'forged',
    'x-gateway-service-account-id': 'forged',
    'x-custom-client-ip': '10.9.9.9',
    x_gateway_client_id: 'forged',
    'x-app-trace': 'keep',
  };
  for (const raw of [false, true]) {
    const answer = await client.check(envoyCheck({ method: 'GET', path: '/v1/sales/42?x=1', host: 'api.test', headers, raw }));
    const ok = allowed(t, answer);
    t.equal(answered(ok.headers, 'x-gateway-client-id'), oauthClient.client_id, `${raw ? 'header_map' : 'headers'}: the client id`);
    t.equal(answered(ok.headers, 'x-gateway-scopes'), 'sales');
    t.equal(answered(ok.headers, 'x-gateway-account-id'), 'acct-7');
    const requestId = answered(ok.headers, 'x-request-id');
    t.match(requestId, /^[0-9a-f-]{36}$/);
    t.ok(
      ok.headers.every((option) => option.append_action === 2),
      'each replaces what the client sent (OVERWRITE_IF_EXISTS_OR_ADD)',
    );
    const removed = ok.headers_to_remove;
    for (const name of [...CONSUMED_CREDENTIAL_HEADERS, ...CLIENT_ROUTING_HEADERS, 'x-custom-client-ip', 'x_gateway_client_id', 'x-gateway-service-account-id'])
      t.ok(removed.includes(name), `${name} is removed`);
    for (const name of ['x-gateway-client-id', 'x-request-id', 'x-app-trace', 'host', 'x-forwarded-proto', ':authority', 'x-envoy-auth-partial-body'])
      t.notOk(removed.includes(name), `${name} is not removed`);
    t.same(metadataOf(answer), {
      request_id: requestId,
      route: 'public:GET /v1/sales/{id}',
      principal: 'client',
      client_id: oauthClient.client_id,
      scopes: 'sales',
      account_id: 'acct-7',
    });
  }

  // No token: 401 with the challenge; a bad one; a token without the route's scope: 403.
  const missing = refused(t, await client.check(envoyCheck({ method: 'GET', path: '/v1/sales', host: 'api.test' })), 401, 'invalid_token', rpc.UNAUTHENTICATED);
  t.equal(answered(missing.headers, 'www-authenticate'), 'Bearer realm="gateway"');
  t.match(answered(missing.headers, 'x-request-id'), /^[0-9a-f-]{36}$/);
  t.equal(missing.body.request_id, answered(missing.headers, 'x-request-id'), 'the body and the header name one request');
  const bad = refused(
    t,
    await client.check(envoyCheck({ method: 'GET', path: '/v1/sales', host: 'api.test', headers: { authorization: 'Bearer not-a-jwt' } })),
    401,
    'invalid_token',
    rpc.UNAUTHENTICATED,
  );
  t.match(answered(bad.headers, 'www-authenticate'), /^Bearer realm="gateway", error="invalid_token"/);
  const scope = refused(
    t,
    await client.check(envoyCheck({ method: 'GET', path: '/v1/products', host: 'api.test', headers })),
    403,
    'insufficient_scope',
    rpc.PERMISSION_DENIED,
  );
  t.equal(scope.body.message, 'This route requires the scope products.');
  t.match(answered(scope.headers, 'www-authenticate'), /insufficient_scope/);
  untouched(t, tg);
});

t.test('the route, the path and the rate limit refuse as the proxy does; the limit’s fields reach the client either way', async (t) => {
  const { tg, client } = await startGrpcGateway(t, {}, { store: 'embedded' });
  const headers = { authorization: `Bearer ${await accessToken(tg, await createClient(tg, ['sales']))}` };
  const nowhere = refused(
    t,
    await client.check(envoyCheck({ method: 'GET', path: '/v1/nowhere', host: 'api.test', headers })),
    404,
    'route_not_found',
    rpc.NOT_FOUND,
  );
  t.match(nowhere.body.message, /No route matches GET \/v1\/nowhere/);
  refused(
    t,
    await client.check(envoyCheck({ method: 'GET', path: '/v1/sales/%2e%2e/x', host: 'api.test', headers })),
    400,
    'ambiguous_path',
    rpc.INVALID_ARGUMENT,
  );
  const first = allowed(t, await client.check(envoyCheck({ method: 'GET', path: LIMITED_ROUTE, host: 'api.test', headers })));
  t.equal(answered(first.response_headers_to_add, 'ratelimit-policy'), `"decision:GET ${LIMITED_ROUTE}";q=1;w=60`);
  t.match(answered(first.response_headers_to_add, 'ratelimit'), new RegExp(`^"decision:GET ${LIMITED_ROUTE}";r=0;t=\\d+$`));
  const limited = refused(
    t,
    await client.check(envoyCheck({ method: 'GET', path: LIMITED_ROUTE, host: 'api.test', headers })),
    429,
    'rate_limited',
    rpc.RESOURCE_EXHAUSTED,
  );
  t.match(answered(limited.headers, 'retry-after'), /^\d+$/);
  t.match(answered(limited.headers, 'ratelimit'), /;r=0;/);
  untouched(t, tg);
});

t.test('signed GET: allowed with the service account; a replay, a wrong authority, a missing permission and the other signature refusals', async (t) => {
  const { tg, client } = await startGrpcGateway(t, {}, { store: 'embedded' });
  const sa = await createServiceAccount(tg, { permissions: ['view_balance'], account_id: 'bank-1' });
  const ask = envoyCheck({ method: 'GET', path: '/v1/balance', host: BANKING_HOST, headers: signed(sa, 'GET', '/v1/balance') });
  const answer = await client.check(ask);
  const ok = allowed(t, answer);
  t.equal(answered(ok.headers, 'x-gateway-service-account-id'), sa.account.id);
  t.equal(answered(ok.headers, 'x-gateway-permissions'), 'view_balance');
  t.equal(answered(ok.headers, 'x-gateway-account-id'), 'bank-1');
  t.equal(answered(ok.headers, 'x-gateway-digest'), undefined, 'nothing left to the upstream');
  for (const name of ['x-access-id', 'signature', 'signature-input']) t.ok(ok.headers_to_remove.includes(name), `${name} is removed`);
  t.match(metadataOf(answer), {
    principal: 'service-account',
    service_account_id: sa.account.id,
    permissions: 'view_balance',
    route: 'banking:GET /v1/balance',
  });

  const replay = refused(t, await client.check(ask), 401, 'nonce_replayed', rpc.UNAUTHENTICATED);
  t.match(answered(replay.headers, 'accept-signature'), /nonce/);
  // The authority is what Envoy names in attributes.request.http.host: another one fails to verify.
  const elsewhere = refused(
    t,
    await client.check(envoyCheck({ method: 'GET', path: '/v1/balance', host: 'other.test', headers: signed(sa, 'GET', '/v1/balance') })),
    401,
    'signature_invalid',
    rpc.UNAUTHENTICATED,
  );
  t.match(elsewhere.body.signature_base, /"@authority": other\.test/);
  refused(
    t,
    await client.check(envoyCheck({ method: 'GET', path: '/v1/account', host: BANKING_HOST, headers: signed(sa, 'GET', '/v1/account') })),
    403,
    'permission_denied',
    rpc.PERMISSION_DENIED,
  );
  const unsigned = refused(
    t,
    await client.check(envoyCheck({ method: 'GET', path: '/v1/balance', host: BANKING_HOST })),
    401,
    'signature_missing',
    rpc.UNAUTHENTICATED,
  );
  t.ok(answered(unsigned.headers, 'accept-signature'), 'with what to sign');
  const old = signedHeaders(sa, { method: 'GET', url: '/v1/balance', sign: { created: Math.floor(Date.now() / 1000) - 3600 } });
  refused(
    t,
    await client.check(envoyCheck({ method: 'GET', path: '/v1/balance', host: BANKING_HOST, headers: old })),
    401,
    'signature_expired',
    rpc.UNAUTHENTICATED,
  );
  const twoIds = { ...signed(sa, 'GET', '/v1/balance') };
  twoIds['x-access-id'] = [twoIds['x-access-id'] as string, 'other'];
  refused(
    t,
    await client.check(envoyCheck({ method: 'GET', path: '/v1/balance', host: BANKING_HOST, headers: twoIds, raw: true })),
    401,
    'access_id_conflict',
    rpc.UNAUTHENTICATED,
  );
  t.equal(await authFailures(tg, 'nonce_replayed'), 1, 'a refused credential is counted as on the proxy');

  const deleted = await adminInject(tg, { method: 'DELETE', url: `/admin/v1/service-accounts/${sa.account.id}` });
  t.equal(deleted.statusCode, 204);
  refused(
    t,
    await client.check(envoyCheck({ method: 'GET', path: '/v1/balance', host: BANKING_HOST, headers: signed(sa, 'GET', '/v1/balance') })),
    401,
    'unknown_access_id',
    rpc.UNAUTHENTICATED,
  );
  untouched(t, tg);
});

t.test('signed bodies: the body Envoy sends is checked (body and raw_body); partial, tampered and kept bodies refused; digest: upstream', async (t) => {
  const { tg, client } = await startGrpcGateway(t, {}, { store: 'embedded' });
  const sa = await createServiceAccount(tg, { permissions: ['initiate_payment', 'view_balance'] });
  const body = '{"amount":100,"memo":"café"}';
  const post = (extra: Partial<Parameters<typeof envoyCheck>[0]>, headers = signed(sa, 'POST', '/v1/transfers', body)) =>
    client.check(
      envoyCheck({
        method: 'POST',
        path: '/v1/transfers',
        host: BANKING_HOST,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        ...extra,
      }),
    );

  const ok = allowed(t, await post({ body }));
  t.equal(answered(ok.headers, 'x-gateway-digest'), undefined, 'the decision checked the digest itself');
  t.notOk(ok.headers_to_remove.includes('content-digest'), 'Content-Digest stays');
  allowed(t, await post({ rawBody: Buffer.from(body) }));
  refused(t, await post({ body: '{"amount":999,"memo":"café"}' }), 401, 'digest_mismatch', rpc.UNAUTHENTICATED);
  refused(t, await post({ body: body.slice(0, 10), partial: true }), 413, 'body_partial', rpc.INVALID_ARGUMENT);
  // A body shorter than the request's Content-Length is not the request's body, marked or not.
  refused(t, await post({ body: body.slice(0, 10) }), 413, 'body_partial', rpc.INVALID_ARGUMENT);
  // Envoy without with_request_body: the body stays with Envoy, and this route checks the digest itself.
  const kept = refused(t, await post({}), 403, 'body_not_checkable', rpc.PERMISSION_DENIED);
  t.match(kept.body.message, /with_request_body/);

  // Delegated: allowed without the body, and the upstream is told to check it against the signed Content-Digest.
  const delegated = signed(sa, 'POST', DELEGATED_ROUTE, body);
  const ask = envoyCheck({ method: 'POST', path: DELEGATED_ROUTE, host: BANKING_HOST, headers: delegated });
  const answer = await client.check(ask);
  t.equal(answered(allowed(t, answer).headers, 'x-gateway-digest'), 'upstream');
  t.equal(metadataOf(answer).digest, 'upstream');
  refused(t, await client.check(ask), 401, 'nonce_replayed', rpc.UNAUTHENTICATED);

  // Envoy asks with the original method: a GET that carries a body has it checked too.
  const getBody = (sent: string) =>
    client.check(envoyCheck({ method: 'GET', path: '/v1/balance', host: BANKING_HOST, headers: signed(sa, 'GET', '/v1/balance', body), body: sent }));
  allowed(t, await getBody(body));
  refused(t, await getBody('{"amount":1}'), 401, 'digest_mismatch', rpc.UNAUTHENTICATED);
  refused(
    t,
    await client.check(envoyCheck({ method: 'GET', path: '/v1/balance', host: BANKING_HOST, headers: signed(sa, 'GET', '/v1/balance'), body })),
    401,
    'signature_components_missing',
    rpc.UNAUTHENTICATED,
  );
  untouched(t, tg);
});

t.test('only a trusted caller may ask, and the client address is attributes.source.address, never a header', async (t) => {
  const { tg, client } = await startGrpcGateway(t, {}, { store: 'embedded' });
  const sa = await createServiceAccount(tg, { permissions: ['view_balance'], allowed_ips: ['203.0.113.0/24'] });
  const from = (address: string, forwardedFor?: string) =>
    client.check(
      envoyCheck({
        method: 'GET',
        path: '/v1/balance',
        host: BANKING_HOST,
        client: address,
        headers: { ...signed(sa, 'GET', '/v1/balance'), ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) },
      }),
    );
  allowed(t, await from('203.0.113.9'));
  refused(t, await from('198.51.100.1'), 403, 'ip_not_allowed', rpc.PERMISSION_DENIED);
  refused(t, await from('198.51.100.1', '203.0.113.9'), 403, 'ip_not_allowed', rpc.PERMISSION_DENIED);
  const noSource = envoyCheck({ method: 'GET', path: '/v1/balance', host: BANKING_HOST, headers: signed(sa, 'GET', '/v1/balance') });
  delete noSource.attributes!.source;
  const anonymous = refused(t, await client.check(noSource), 400, 'decision_request_invalid', rpc.INVALID_ARGUMENT);
  t.match(anonymous.body.message, /attributes\.source\.address/);
  refused(
    t,
    await client.check(envoyCheck({ method: 'GET', path: '/v1/balance', host: BANKING_HOST, client: 'client.example' })),
    400,
    'decision_request_invalid',
    rpc.INVALID_ARGUMENT,
  );
  const noHttp = refused(
    t,
    await client.check({ attributes: { source: noSource.attributes!.destination } }),
    400,
    'decision_request_invalid',
    rpc.INVALID_ARGUMENT,
  );
  t.match(noHttp.body.message, /attributes\.request\.http/);
  refused(
    t,
    await client.check(envoyCheck({ method: 'GE T', path: '/v1/balance', host: BANKING_HOST })),
    400,
    'decision_request_invalid',
    rpc.INVALID_ARGUMENT,
  );
  refused(
    t,
    await client.check(envoyCheck({ method: 'GET', path: 'http://elsewhere/v1/balance', host: BANKING_HOST })),
    400,
    'decision_request_invalid',
    rpc.INVALID_ARGUMENT,
  );

  // A gateway that trusts only other addresses refuses this (loopback) caller, whatever it describes.
  const other = await startGrpcGateway(t, { trusted_proxies: ['192.0.2.0/24'] }, { store: 'embedded' });
  const stranger = refused(
    t,
    await other.client.check(envoyCheck({ method: 'GET', path: '/v1/balance', host: BANKING_HOST })),
    403,
    'decision_caller_not_trusted',
    rpc.PERMISSION_DENIED,
  );
  t.match(stranger.body.message, /GATEWAY_TRUSTED_PROXIES/);
  untouched(t, tg);
});

t.test('a caller that is not a trusted proxy may send a message of headers, not of a body, and may still ask for health', async (t) => {
  const { tg, client } = await startGrpcGateway(t, {}, { store: 'embedded' });
  const stranger = await startGrpcGateway(t, { trusted_proxies: ['192.0.2.0/24'] }, { store: 'embedded' });
  const withBody = envoyCheck({ method: 'POST', path: '/v1/transfers', host: BANKING_HOST, body: 'x'.repeat(140 * 1024) });
  // A trusted proxy's message of that size is decoded and decided (the signature is missing).
  refused(t, await client.check(withBody), 401, 'signature_missing', rpc.UNAUTHENTICATED);
  // A stranger's is refused on its length, before it is read: it could never pass anyway.
  await t.rejects(stranger.client.check(withBody), { code: rpc.RESOURCE_EXHAUSTED }, 'a stranger’s message is headers at most');
  refused(
    t,
    await stranger.client.check(envoyCheck({ method: 'GET', path: '/v1/balance', host: BANKING_HOST })),
    403,
    'decision_caller_not_trusted',
    rpc.PERMISSION_DENIED,
  );
  t.equal(await stranger.client.health(), 'SERVING', 'health answers whoever asks (a kubelet is rarely a trusted proxy)');
  untouched(t, tg);
  untouched(t, stranger.tg);
});

t.test('a message past the body limit is refused before it is decoded; a body within it but over the limit is body_too_large', async (t) => {
  const { tg, client } = await startGrpcGateway(t, { max_body_bytes: 4096 }, { store: 'embedded' });
  const sa = await createServiceAccount(tg, { permissions: ['initiate_payment'] });
  const ask = (body: string) =>
    client.check(envoyCheck({ method: 'POST', path: '/v1/transfers', host: BANKING_HOST, headers: signed(sa, 'POST', '/v1/transfers', body), body }));
  allowed(t, await ask('x'.repeat(4096)));
  refused(t, await ask('x'.repeat(4097)), 413, 'body_too_large', rpc.INVALID_ARGUMENT);
  await t.rejects(ask('x'.repeat(4096 + 140 * 1024)), { code: rpc.RESOURCE_EXHAUSTED }, 'grpc.max_receive_message_length: max_body_bytes + 128 KiB');
  // The connection survives it: the next call is answered.
  allowed(t, await ask('{}'));
  untouched(t, tg);
});

t.test('decisions are counted and logged as the HTTP listener’s, under their own convention and listener', async (t) => {
  const { tg, client } = await startGrpcGateway(t, {}, { store: 'embedded' });
  const headers = {
    authorization: `Bearer ${await accessToken(tg, await createClient(tg, ['sales']))}`,
    traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
  };
  allowed(t, await client.check(envoyCheck({ method: 'GET', path: '/v1/sales?secret=1', host: 'api.test', headers })));
  refused(
    t,
    await client.check(envoyCheck({ method: 'GET', path: '/v1/products', host: 'api.test', headers })),
    403,
    'insufficient_scope',
    rpc.PERMISSION_DENIED,
  );
  const metrics = await tg.gateway.metrics.registry.metrics();
  t.match(metrics, /gateway_decisions_total\{convention="envoy-grpc",route="public:GET \/v1\/sales",outcome="allowed"\} 1/);
  t.match(metrics, /gateway_decisions_total\{convention="envoy-grpc",route="public:GET \/v1\/products",outcome="insufficient_scope"\} 1/);
  t.match(metrics, /gateway_decision_duration_seconds_count\{convention="envoy-grpc",outcome="allowed"\} 1/);
  t.match(metrics, /gateway_auth_failures_total\{scheme="bearer",reason="insufficient_scope"\} 1/);
  t.match(metrics, /gateway_requests_in_flight\{listener="decision-grpc"\} 0/);
  t.notMatch(metrics, /gateway_requests_total\{route="public:GET \/v1\/sales"/, 'not counted as a proxied request');
  const lines = tg.logs.lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.listener === 'decision-grpc');
  const calls = lines.filter((line) => line.msg === 'request');
  t.equal(calls.length, 2, 'one line per call');
  t.match(calls[0], {
    rpc: 'envoy.service.auth.v3.Authorization/Check',
    method: 'GET',
    path: '/v1/sales',
    status: 200,
    outcome: 'ok',
    route: 'public:GET /v1/sales',
    trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
    peer: /^127\.0\.0\.1:\d+$/,
  });
  t.match(calls[1], { status: 403, grpc_status: rpc.PERMISSION_DENIED, outcome: 'insufficient_scope' });
  t.notMatch(JSON.stringify(lines), /secret=1|Bearer /, 'neither the query nor the token is logged');
  t.match(
    lines.find((line) => line.audit === 'request.denied'),
    { mode: 'decision', convention: 'envoy-grpc', reason: 'insufficient_scope', status: 403, address: '198.51.100.7' },
  );
});
