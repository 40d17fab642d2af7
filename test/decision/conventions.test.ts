// Contract tests of the decision listener: the request shapes nginx auth_request, Envoy ext_authz
// (HTTP service), Traefik forwardAuth and Caddy forward_auth send, as their documentation describes them, and the
// answers each expects. No request reaches an upstream: the decision only answers.
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import t, { type Test } from 'tap';
import { CLIENT_ROUTING_HEADERS, CONSUMED_CREDENTIAL_HEADERS } from '../../gateway/pipeline/mutate.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { listen, rawRequest } from '../helpers/http.js';
import { accessToken, createClient } from '../helpers/oauth.js';
import { adminInject, authFailures, BANKING_HOST, createServiceAccount, signedHeaders, type TestServiceAccount } from '../helpers/signing.js';
import { DELEGATED_ROUTE, decisionConfig, LIMITED_ROUTE } from './decision-policies.js';

function decide(tg: TestGateway, options: InjectOptions): Promise<LightMyRequestResponse> {
  return tg.gateway.decisionListener!.inject(options);
}

/** nginx auth_request: a GET subrequest without body; the original request line in X-Original-*. */
function nginxAsk(method: string, uri: string, headers: Record<string, string | string[]>, extra: Record<string, string> = {}): InjectOptions {
  return {
    method: 'GET',
    url: '/nginx',
    headers: { ...headers, 'x-original-method': method, 'x-original-uri': uri, 'x-original-protocol': 'HTTP/1.1', 'x-forwarded-for': '198.51.100.7', ...extra },
  };
}

/** Envoy ext_authz: original method, path_prefix + original path, Content-Length 0 unless with_request_body. */
function envoyAsk(method: string, uri: string, headers: Record<string, string | string[]>, body?: string): InjectOptions {
  const withBody = body === undefined ? {} : { 'x-envoy-auth-partial-body': 'false' };
  return {
    method,
    url: `/envoy${uri}`,
    headers: { ...headers, 'x-forwarded-for': '198.51.100.7', ...withBody },
    ...(body === undefined ? {} : { payload: body }),
  };
}

/** Traefik forwardAuth: a GET to the auth address with X-Forwarded-Method/-Uri/-Host/-Proto and the client's headers. */
function traefikAsk(method: string, uri: string, headers: Record<string, string | string[]>, host: string): InjectOptions {
  const { host: _clientHost, ...clientHeaders } = headers;
  return {
    method: 'GET',
    url: '/traefik',
    headers: {
      ...clientHeaders,
      host: 'gateway-decision:8082',
      'x-forwarded-method': method,
      'x-forwarded-uri': uri,
      'x-forwarded-host': host,
      'x-forwarded-proto': 'https',
      'x-forwarded-for': '198.51.100.7',
    },
  };
}

/** Traefik forwardAuth with forwardBody: the client's body on the GET decision request itself. */
function traefikWithBody(method: string, uri: string, headers: Record<string, string | string[]>, host: string, body: string): InjectOptions {
  return { ...traefikAsk(method, uri, headers, host), payload: body };
}

/** Caddy forward_auth as deploy/edge/Caddyfile sets it up: a GET without the body, its length stated. */
function caddyAsk(method: string, uri: string, headers: Record<string, string | string[]>, host: string, extra: Record<string, string> = {}): InjectOptions {
  const { host: _clientHost, ...clientHeaders } = headers;
  return {
    method: 'GET',
    url: '/caddy',
    headers: {
      ...clientHeaders,
      host: 'gateway-decision:8082',
      'x-forwarded-method': method,
      'x-forwarded-uri': uri,
      'x-forwarded-host': host,
      'x-forwarded-proto': 'https',
      'x-forwarded-for': '198.51.100.7',
      'x-original-content-length': '',
      'x-original-unframed-bodies': 'refused',
      ...extra,
    },
  };
}

function signed(sa: TestServiceAccount, method: string, url: string, body?: string): Record<string, string | string[]> {
  return signedHeaders(sa, { method, url, ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/json' } }) });
}

function refusal(t: Test, response: LightMyRequestResponse, status: number, code: string): void {
  t.equal(response.statusCode, status, response.body);
  t.equal(response.headers['x-gateway-error'], code);
  const body = response.json<{ error: string; request_id: string }>();
  t.equal(body.error, code);
  t.type(body.request_id, 'string');
}

async function setup(t: Test) {
  const tg = await startTestGateway(t, { config: decisionConfig(t) });
  const untouched = () => {
    t.equal(tg.upstreams.public.received.length, 0, 'nothing reached the public upstream');
    t.equal(tg.upstreams.banking.received.length, 0, 'nothing reached the banking upstream');
  };
  return { tg, untouched };
}

t.test('Bearer: each convention is allowed with the identity headers and refused as the proxy refuses', async (t) => {
  const { tg, untouched } = await setup(t);
  const client = await createClient(tg, ['sales'], { account_id: 'acct-7' });
  const token = await accessToken(tg, client);
  const headers = { host: 'api.test', authorization: `Bearer ${token}`, 'x-gateway-client-id': 'forged' };
  for (const ask of [
    nginxAsk('GET', '/v1/sales/42?x=1', headers),
    envoyAsk('GET', '/v1/sales/42?x=1', headers),
    traefikAsk('GET', '/v1/sales/42?x=1', headers, 'api.test'),
    caddyAsk('GET', '/v1/sales/42?x=1', headers, 'api.test'),
  ]) {
    const response = await decide(tg, ask);
    t.equal(response.statusCode, 200, `${JSON.stringify(ask.url)}: ${response.body}`);
    t.equal(response.headers['x-gateway-client-id'], client.client_id);
    t.equal(response.headers['x-gateway-scopes'], 'sales');
    t.equal(response.headers['x-gateway-account-id'], 'acct-7');
    t.match(response.headers['x-request-id'], /^[0-9a-f-]{36}$/);
    t.equal(response.body, '');
  }
  // No token: 401 with the challenge; a token without the route's scope: 403.
  const missing = await decide(tg, envoyAsk('GET', '/v1/sales', { host: 'api.test' }));
  refusal(t, missing, 401, 'invalid_token');
  t.equal(missing.headers['www-authenticate'], 'Bearer realm="gateway"');
  refusal(t, await decide(tg, nginxAsk('GET', '/v1/products', headers)), 403, 'insufficient_scope');
  refusal(t, await decide(tg, traefikAsk('GET', '/v1/sales', { authorization: 'Bearer not-a-jwt' }, 'api.test')), 401, 'invalid_token');
  untouched();
});

t.test('nginx: refusals other than 401 and 403 are answered 403 with the original code; the others keep their status', async (t) => {
  const { tg, untouched } = await setup(t);
  const client = await createClient(tg, ['sales']);
  const headers = { host: 'api.test', authorization: `Bearer ${await accessToken(tg, client)}` };
  const notFound = await decide(tg, nginxAsk('GET', '/v1/nowhere', headers));
  refusal(t, notFound, 403, 'route_not_found');
  t.match(notFound.json<{ message: string }>().message, /No route matches GET \/v1\/nowhere/);
  refusal(t, await decide(tg, nginxAsk('GET', '/v1/sales/%2e%2e/x', headers)), 403, 'ambiguous_path');
  refusal(t, await decide(tg, envoyAsk('GET', '/v1/nowhere', headers)), 404, 'route_not_found');
  refusal(t, await decide(tg, traefikAsk('GET', '/v1/nowhere', headers, 'api.test')), 404, 'route_not_found');
  // The rate limit's 429 and Retry-After: nginx gets 403 with the code; Envoy the 429 itself.
  t.equal((await decide(tg, envoyAsk('GET', LIMITED_ROUTE, headers))).statusCode, 200);
  const limited = await decide(tg, envoyAsk('GET', LIMITED_ROUTE, headers));
  refusal(t, limited, 429, 'rate_limited');
  t.match(limited.headers['retry-after'], /^\d+$/);
  const limitedNginx = await decide(tg, nginxAsk('GET', LIMITED_ROUTE, headers));
  refusal(t, limitedNginx, 403, 'rate_limited');
  t.match(limitedNginx.headers['retry-after'], /^\d+$/);
  untouched();
});

t.test('signed GET: allowed through each convention; the nonce is spent, so a replay is refused', async (t) => {
  const { tg, untouched } = await setup(t);
  const sa = await createServiceAccount(tg, { permissions: ['view_balance'], account_id: 'bank-1' });
  const asks = [
    nginxAsk('GET', '/v1/balance', signed(sa, 'GET', '/v1/balance')),
    envoyAsk('GET', '/v1/balance', signed(sa, 'GET', '/v1/balance')),
    // Traefik's signed @authority is the X-Forwarded-Host it sends.
    traefikAsk('GET', '/v1/balance', signed(sa, 'GET', '/v1/balance'), BANKING_HOST),
    caddyAsk('GET', '/v1/balance', signed(sa, 'GET', '/v1/balance'), BANKING_HOST),
  ];
  for (const ask of asks) {
    const response = await decide(tg, ask);
    t.equal(response.statusCode, 200, `${JSON.stringify(ask.url)}: ${response.body}`);
    t.equal(response.headers['x-gateway-service-account-id'], sa.account.id);
    t.equal(response.headers['x-gateway-permissions'], 'view_balance');
    t.equal(response.headers['x-gateway-account-id'], 'bank-1');
    t.notOk(response.headers['x-gateway-digest'], 'no check delegated (Caddy answers it empty)');
    const replay = await decide(tg, ask);
    refusal(t, replay, 401, 'nonce_replayed');
    t.match(replay.headers['accept-signature'], /nonce/);
  }
  // The authority is part of what was signed: a Traefik host other than the signed one fails to verify.
  const elsewhere = await decide(tg, traefikAsk('GET', '/v1/balance', signed(sa, 'GET', '/v1/balance'), 'other.test'));
  refusal(t, elsewhere, 401, 'signature_invalid');
  t.match(elsewhere.json<{ signature_base: string }>().signature_base, /"@authority": other\.test/);
  refusal(t, await decide(tg, envoyAsk('GET', '/v1/account', signed(sa, 'GET', '/v1/account'))), 403, 'permission_denied');
  untouched();
});

t.test('signed bodies: Envoy with_request_body checks the digest; a withheld body needs digest: upstream', async (t) => {
  const { tg, untouched } = await setup(t);
  const sa = await createServiceAccount(tg, { permissions: ['initiate_payment'] });
  const body = '{"amount":100}';
  const allowed = await decide(tg, envoyAsk('POST', '/v1/transfers', signed(sa, 'POST', '/v1/transfers', body), body));
  t.equal(allowed.statusCode, 200, allowed.body);
  t.equal(allowed.headers['x-gateway-digest'], undefined, 'the decision checked the digest itself');
  refusal(t, await decide(tg, envoyAsk('POST', '/v1/transfers', signed(sa, 'POST', '/v1/transfers', body), '{"amount":999}')), 401, 'digest_mismatch');
  refusal(
    t,
    await decide(tg, {
      ...envoyAsk('POST', '/v1/transfers', signed(sa, 'POST', '/v1/transfers', body), body),
      headers: { ...signed(sa, 'POST', '/v1/transfers', body), 'x-envoy-auth-partial-body': 'true' },
    }),
    413,
    'body_partial',
  );
  // Envoy without with_request_body, and nginx (never a body): refused on a route that checks the digest itself.
  refusal(t, await decide(tg, envoyAsk('POST', '/v1/transfers', signed(sa, 'POST', '/v1/transfers', body))), 403, 'body_not_checkable');
  refusal(
    t,
    await decide(tg, nginxAsk('POST', '/v1/transfers', signed(sa, 'POST', '/v1/transfers', body), { 'x-original-content-length': String(body.length) })),
    403,
    'body_not_checkable',
  );
  // nginx on a GET route that says a body came (X-Original-Content-Length): the same.
  refusal(
    t,
    await decide(tg, nginxAsk('GET', '/v1/balance', signed(sa, 'GET', '/v1/balance'), { 'x-original-content-length': '5' })),
    403,
    'body_not_checkable',
  );
  // Delegated: allowed, and the answer tells the upstream to check the body against the signed Content-Digest.
  const headers = signed(sa, 'POST', DELEGATED_ROUTE, body);
  const delegated = await decide(tg, nginxAsk('POST', DELEGATED_ROUTE, headers, { 'x-original-content-length': String(body.length) }));
  t.equal(delegated.statusCode, 200, delegated.body);
  t.equal(delegated.headers['x-gateway-digest'], 'upstream');
  refusal(t, await decide(tg, nginxAsk('POST', DELEGATED_ROUTE, headers, { 'x-original-content-length': String(body.length) })), 401, 'nonce_replayed');
  // On a delegated route the signature must still cover a Content-Digest, even when nginx cannot tell a body came.
  const uncovered = signedHeaders(sa, { method: 'POST', url: DELEGATED_ROUTE });
  refusal(t, await decide(tg, nginxAsk('POST', DELEGATED_ROUTE, uncovered)), 401, 'signature_components_missing');
  untouched();
});

t.test("the client address comes from the edge proxy's X-Forwarded-For; only trusted proxies may ask", async (t) => {
  const { tg, untouched } = await setup(t);
  const sa = await createServiceAccount(tg, { permissions: ['view_balance'], allowed_ips: ['203.0.113.0/24'] });
  const from = (address: string) => ({
    ...envoyAsk('GET', '/v1/balance', signed(sa, 'GET', '/v1/balance')),
    headers: { ...signed(sa, 'GET', '/v1/balance'), 'x-forwarded-for': `10.9.9.9, ${address}` },
  });
  t.equal((await decide(tg, from('203.0.113.9'))).statusCode, 200);
  refusal(t, await decide(tg, from('198.51.100.1')), 403, 'ip_not_allowed');
  refusal(t, await decide(tg, { ...from('203.0.113.9'), remoteAddress: '192.0.2.1' }), 403, 'decision_caller_not_trusted');
  refusal(t, await decide(tg, { ...nginxAsk('GET', '/v1/balance', {}), remoteAddress: '192.0.2.1' }), 403, 'decision_caller_not_trusted');
  untouched();
});

t.test('a decision request that does not describe the original request is refused and says what is missing', async (t) => {
  const { tg } = await setup(t);
  const noUri = await decide(tg, {
    method: 'GET',
    url: '/traefik',
    headers: { 'x-forwarded-method': 'GET', 'x-forwarded-host': 'api.test', 'x-forwarded-for': '198.51.100.7' },
  });
  refusal(t, noUri, 400, 'decision_request_invalid');
  t.match(noUri.json<{ message: string }>().message, /x-forwarded-uri/);
  const badMethod = await decide(tg, nginxAsk('GE T', '/v1/sales', {}));
  refusal(t, badMethod, 403, 'decision_request_invalid');
  t.match(badMethod.json<{ message: string }>().message, /X-Original-Method is not an HTTP method/);
  refusal(t, await decide(tg, nginxAsk('GET', 'http://elsewhere/v1/sales', {})), 403, 'decision_request_invalid');
  refusal(t, await decide(tg, { method: 'GET', url: '/somewhere' }), 400, 'decision_request_invalid');
  const anonymous = await decide(tg, { method: 'GET', url: '/envoy/v1/sales', headers: { host: 'api.test' } });
  refusal(t, anonymous, 400, 'decision_request_invalid');
  t.match(anonymous.json<{ message: string }>().message, /X-Forwarded-For/);
});

t.test('decisions are counted apart from proxied requests and logged with their listener', async (t) => {
  const { tg } = await setup(t);
  const client = await createClient(tg, ['sales']);
  const headers = { host: 'api.test', authorization: `Bearer ${await accessToken(tg, client)}` };
  await decide(tg, envoyAsk('GET', '/v1/sales', headers));
  await decide(tg, nginxAsk('GET', '/v1/products', headers));
  const metrics = await tg.gateway.metrics.registry.metrics();
  t.match(metrics, /gateway_decisions_total\{convention="envoy",route="public:GET \/v1\/sales",outcome="allowed"\} 1/);
  t.match(metrics, /gateway_decisions_total\{convention="nginx",route="public:GET \/v1\/products",outcome="insufficient_scope"\} 1/);
  t.notMatch(metrics, /gateway_requests_total\{route="public:GET \/v1\/sales"/, 'not counted as a proxied request');
  const denied = tg.logs.lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line.audit === 'request.denied');
  t.match(denied, { mode: 'decision', convention: 'nginx', reason: 'insufficient_scope', listener: 'decision', status: 403 });
});

t.test('a refused credential counts in gateway_auth_failures_total as on the proxy; a refused description does not', async (t) => {
  const { tg, untouched } = await setup(t);
  const counted = (reason: string, scheme: string) => authFailures(tg, reason, scheme);
  const client = await createClient(tg, ['sales']);
  const headers = { host: 'api.test', authorization: `Bearer ${await accessToken(tg, client)}` };

  const badToken = await decide(tg, nginxAsk('GET', '/v1/sales', { host: 'api.test', authorization: 'Bearer not-a-token' }));
  refusal(t, badToken, 401, 'invalid_token');
  t.match(badToken.headers['www-authenticate'], /^Bearer realm="gateway", error="invalid_token"/);
  t.equal(await counted('invalid_token', 'bearer'), 1, "a decision's 401 is counted by scheme and reason");

  const noScope = await decide(tg, envoyAsk('GET', '/v1/products', headers));
  refusal(t, noScope, 403, 'insufficient_scope');
  t.same(noScope.json(), { error: 'insufficient_scope', message: 'This route requires the scope products.', request_id: noScope.json().request_id });
  t.equal(await counted('insufficient_scope', 'bearer'), 1);

  const unsigned = await decide(tg, envoyAsk('GET', '/v1/balance', { host: BANKING_HOST }));
  refusal(t, unsigned, 401, 'signature_missing');
  t.ok(unsigned.headers['accept-signature'], 'with what to sign');
  t.equal(await counted('signature_missing', 'signature'), 1);

  // Not a credential refusal, though nginx is answered 403: a path no route matches.
  refusal(t, await decide(tg, nginxAsk('GET', '/v1/nowhere', headers)), 403, 'route_not_found');
  t.equal(await counted('route_not_found', 'bearer'), 0);
  t.equal(await counted('route_not_found', 'client'), 0);

  // A rate limit: the allowed answer carries the fields; the refusal counts as rate-limited, not as an auth failure.
  const allowed = await decide(tg, envoyAsk('GET', LIMITED_ROUTE, headers));
  t.equal(allowed.statusCode, 200);
  t.equal(allowed.headers['ratelimit-policy'], `"decision:GET ${LIMITED_ROUTE}";q=1;w=60`);
  t.match(allowed.headers.ratelimit, new RegExp(`^"decision:GET ${LIMITED_ROUTE}";r=0;t=\\d+$`));
  refusal(t, await decide(tg, nginxAsk('GET', LIMITED_ROUTE, headers)), 403, 'rate_limited');
  t.equal(await counted('rate_limited', 'bearer'), 0);
  const metrics = await tg.gateway.metrics.registry.metrics();
  t.match(metrics, `gateway_rate_limited_requests_total{route="decision:GET ${LIMITED_ROUTE}"} 1`);
  t.notMatch(metrics, /gateway_requests_total\{route="(public|banking|decision):/, 'still not counted as proxied requests');
  untouched();
});

t.test('a deleted service account is refused at once', async (t) => {
  const { tg, untouched } = await setup(t);
  const sa = await createServiceAccount(tg, { permissions: ['view_balance'] });
  t.equal((await decide(tg, envoyAsk('GET', '/v1/balance', signed(sa, 'GET', '/v1/balance')))).statusCode, 200);
  const deleted = await adminInject(tg, { method: 'DELETE', url: `/admin/v1/service-accounts/${sa.account.id}` });
  t.equal(deleted.statusCode, 204);
  refusal(t, await decide(tg, envoyAsk('GET', '/v1/balance', signed(sa, 'GET', '/v1/balance'))), 401, 'unknown_access_id');
  untouched();
});

t.test('a body on a GET decision request is read and checked (Traefik forwardBody, Envoy with_request_body)', async (t) => {
  const { tg, untouched } = await setup(t);
  const sa = await createServiceAccount(tg, { permissions: ['initiate_payment', 'view_balance'] });
  const body = '{"amount":100}';
  // A correctly signed POST, its body on Traefik's GET: allowed, the digest checked by the decision.
  const allowed = await decide(tg, traefikWithBody('POST', '/v1/transfers', signed(sa, 'POST', '/v1/transfers', body), BANKING_HOST, body));
  t.equal(allowed.statusCode, 200, allowed.body);
  t.equal(allowed.headers['x-gateway-digest'], undefined, 'checked here, not delegated');
  refusal(
    t,
    await decide(tg, traefikWithBody('POST', '/v1/transfers', signed(sa, 'POST', '/v1/transfers', body), BANKING_HOST, '{"amount":999}')),
    401,
    'digest_mismatch',
  );
  // A signed GET whose signature covers no digest, a body attached: the body must be covered.
  refusal(
    t,
    await decide(tg, traefikWithBody('GET', '/v1/balance', signed(sa, 'GET', '/v1/balance'), BANKING_HOST, body)),
    401,
    'signature_components_missing',
  );
  // Envoy asks with the original method: a GET carrying a body, with_request_body on.
  const envoyGet = {
    method: 'GET' as const,
    url: '/envoy/v1/balance',
    headers: { ...signed(sa, 'GET', '/v1/balance', body), 'x-forwarded-for': '198.51.100.7', 'x-envoy-auth-partial-body': 'false' },
    payload: body,
  };
  t.equal((await decide(tg, envoyGet)).statusCode, 200, 'the GET body matches its signed digest');
  const tampered = {
    ...envoyGet,
    headers: { ...signed(sa, 'GET', '/v1/balance', body), 'x-forwarded-for': '198.51.100.7', 'x-envoy-auth-partial-body': 'false' },
    payload: '{"amount":999}',
  };
  refusal(t, await decide(tg, tampered), 401, 'digest_mismatch');
  // Over a real socket, as Traefik sends it: a GET whose body (with its Content-Length) is the client's.
  const { decisionPort } = await listen(tg);
  const overSocket = async (sent: string) => {
    const ask = traefikAsk('POST', '/v1/transfers', signed(sa, 'POST', '/v1/transfers', body), BANKING_HOST);
    return rawRequest(decisionPort!, 'GET', ask.url as string, ask.headers as Record<string, string>, sent);
  };
  t.equal((await overSocket(body)).status, 200, 'the signed body, read from the socket, matches');
  const wrong = await overSocket('{"amount":999}');
  t.equal(wrong.status, 401);
  t.equal(wrong.headers['x-gateway-error'], 'digest_mismatch');
  untouched();
});

t.test('nginx: the protocol says whether a missing Content-Length means no body', async (t) => {
  const { tg, untouched } = await setup(t);
  const sa = await createServiceAccount(tg, { permissions: ['view_balance', 'initiate_payment'] });
  const missing = await decide(tg, nginxAsk('GET', '/v1/balance', signed(sa, 'GET', '/v1/balance'), { 'x-original-protocol': '' }));
  refusal(t, missing, 403, 'decision_request_invalid');
  t.match(missing.json<{ message: string }>().message, /x-original-protocol/);
  // HTTP/2 with no Content-Length: unknown, so taken as a body the decision cannot check.
  const unknown = await decide(tg, nginxAsk('POST', '/v1/transfers', signed(sa, 'POST', '/v1/transfers'), { 'x-original-protocol': 'HTTP/2.0' }));
  refusal(t, unknown, 403, 'body_not_checkable');
  refusal(
    t,
    await decide(tg, nginxAsk('GET', '/v1/balance', signed(sa, 'GET', '/v1/balance'), { 'x-original-protocol': 'HTTP/3.0' })),
    403,
    'body_not_checkable',
  );
  // nginx dropped the body of such a GET and says its length is 0: allowed as body-less.
  const dropped = await decide(
    tg,
    nginxAsk('GET', '/v1/balance', signed(sa, 'GET', '/v1/balance'), { 'x-original-protocol': 'HTTP/2.0', 'x-original-content-length': '0' }),
  );
  t.equal(dropped.statusCode, 200, dropped.body);
  // HTTP/1.1 without Content-Length or Transfer-Encoding frames no body.
  t.equal((await decide(tg, nginxAsk('GET', '/v1/balance', signed(sa, 'GET', '/v1/balance')))).statusCode, 200);
  untouched();
});

t.test('Caddy: every identity header answered, bodies only with their length, and the guard required', async (t) => {
  const { tg, untouched } = await setup(t);
  const client = await createClient(tg, ['sales']);
  const bearer = await decide(tg, caddyAsk('GET', '/v1/sales', { authorization: `Bearer ${await accessToken(tg, client)}` }, 'api.test'));
  t.equal(bearer.statusCode, 200, bearer.body);
  // copy_headers would write its placeholder's text for a header the answer lacks.
  for (const name of ['x-gateway-service-account-id', 'x-gateway-permissions', 'x-gateway-digest', 'x-gateway-account-id'])
    t.equal(bearer.headers[name], '', `${name} answered empty`);
  t.equal(bearer.headers['x-gateway-client-id'], client.client_id);
  const sa = await createServiceAccount(tg, { permissions: ['initiate_payment'] });
  const body = '{"amount":100}';
  refusal(
    t,
    await decide(
      tg,
      caddyAsk('POST', '/v1/transfers', signed(sa, 'POST', '/v1/transfers', body), BANKING_HOST, { 'x-original-content-length': String(body.length) }),
    ),
    403,
    'body_not_checkable',
  );
  const delegated = await decide(
    tg,
    caddyAsk('POST', DELEGATED_ROUTE, signed(sa, 'POST', DELEGATED_ROUTE, body), BANKING_HOST, { 'x-original-content-length': String(body.length) }),
  );
  t.equal(delegated.statusCode, 200, delegated.body);
  t.equal(delegated.headers['x-gateway-digest'], 'upstream');
  const unguarded = await decide(tg, caddyAsk('GET', '/v1/sales', {}, 'api.test', { 'x-original-unframed-bodies': '' }));
  refusal(t, unguarded, 400, 'decision_request_invalid');
  t.match(unguarded.json<{ message: string }>().message, /X-Original-Unframed-Bodies/);
  untouched();
});

t.test('Envoy: the answer names the headers to remove, by the proxy rule', async (t) => {
  const { tg } = await setup(t);
  const client = await createClient(tg, ['sales']);
  const headers = { host: 'api.test', authorization: `Bearer ${await accessToken(tg, client)}`, 'x-custom-client-ip': '10.9.9.9', 'x-app-trace': 'keep' };
  const allowed = await decide(tg, envoyAsk('GET', '/v1/sales', headers));
  t.equal(allowed.statusCode, 200, allowed.body);
  const removed = String(allowed.headers['x-envoy-auth-headers-to-remove']).split(', ');
  for (const name of [...CONSUMED_CREDENTIAL_HEADERS, ...CLIENT_ROUTING_HEADERS, 'x-custom-client-ip']) t.ok(removed.includes(name), `${name} is removed`);
  for (const name of ['x-app-trace', 'x-forwarded-for', 'host', 'x-request-id', 'x-gateway-client-id']) t.notOk(removed.includes(name), `${name} is kept`);
});

t.test('nginx and Traefik remove by exact name only: a header the rule drops only by pattern is refused there', async (t) => {
  const { tg, untouched } = await setup(t);
  const client = await createClient(tg, ['sales']);
  const headers = { authorization: `Bearer ${await accessToken(tg, client)}` };
  for (const name of ['x-custom-client-ip', 'x-forwarded-foo', 'x-gateway-anything', 'x-original-path', 'x-rewrite-target', 'x-api-method-override']) {
    const extra = { ...headers, [name]: 'DELETE /v1/webhooks/1' };
    for (const [edge, ask] of [
      ['nginx', nginxAsk('GET', '/v1/sales', extra)],
      ['traefik', traefikAsk('GET', '/v1/sales', extra, 'api.test')],
    ] as const) {
      const refused = await decide(tg, ask);
      refusal(t, refused, edge === 'nginx' ? 403 : 400, 'bad_request');
      t.match(refused.json<{ message: string }>().message, new RegExp(`carries ${name}, a header the gateway drops`), `${edge}: ${name} named`);
    }
    // Envoy is told to remove it; Caddy removes it by pattern before it asks.
    const envoy = await decide(tg, envoyAsk('GET', '/v1/sales', extra));
    t.equal(envoy.statusCode, 200, envoy.body);
    t.ok(String(envoy.headers['x-envoy-auth-headers-to-remove']).split(', ').includes(name), `envoy removes ${name}`);
  }
  // The names the shipped files remove by name, and headers the rule forwards, pass.
  const listed = { ...headers, 'x-real-ip': '10.9.9.9', 'x-original-protocol': 'HTTP/1.0', 'x-app-tag': 'ok' };
  t.equal((await decide(tg, traefikAsk('GET', '/v1/sales', listed, 'api.test'))).statusCode, 200);
  t.equal((await decide(tg, nginxAsk('GET', '/v1/sales', { ...headers, 'x-real-ip': '10.9.9.9', 'x-app-tag': 'ok' }))).statusCode, 200);
  untouched();
});

t.test('an underscore spelling of a header the rule drops is refused, since an edge may pass it on', async (t) => {
  const { tg, untouched } = await setup(t);
  const client = await createClient(tg, ['sales']);
  const headers = { authorization: `Bearer ${await accessToken(tg, client)}` };
  const forged = await decide(tg, traefikAsk('GET', '/v1/sales', { ...headers, x_gateway_client_id: 'forged' }, 'api.test'));
  refusal(t, forged, 400, 'bad_request');
  t.match(forged.json<{ message: string }>().message, /x_gateway_client_id.*x-gateway-client-id/);
  refusal(t, await decide(tg, caddyAsk('GET', '/v1/sales', { ...headers, x_http_method_override: 'DELETE' }, 'api.test')), 400, 'bad_request');
  // An underscore name the rule would forward dashed is the upstream's business.
  t.equal((await decide(tg, traefikAsk('GET', '/v1/sales', { ...headers, x_app_tag: 'ok' }, 'api.test'))).statusCode, 200);
  untouched();
});
