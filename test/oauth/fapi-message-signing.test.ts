// The FAPI 2.0 HTTP signature profile on a route with message_signing: fapi-2, end to end over real
// sockets: a private_key_jwt client signs its requests (with this repository's SDK, and with the
// independent http-message-signatures package), the gateway verifies them and signs each response,
// and the independent package verifies the response, bound to the request by the req parameter,
// with the key the gateway publishes. Then every refusal, each 401 with its code and the upstream
// untouched; DPoP, which the signature must cover; the decision listener; and the bound on the
// response the gateway holds to sign.
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { httpbis, type Request as SignedMessage } from 'http-message-signatures';
import t, { type Test } from 'tap';
import { dpopProof, FAPI_REQUEST_TAG, signFapiRequest, signHttpMessage } from '@access-gateway/signing';
import { RESPONSE_SIGNING_JWKS_PATH } from '../../gateway/signing/response-signing-key.js';
import { claimsFor, keyPair, signAssertion, type TestKeyPair } from '../helpers/client-assertion.js';
import { freePort } from '../helpers/gateway-process.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { createClient, tokenRequest } from '../helpers/oauth.js';
import { policyDirWith } from '../helpers/policy-dir.js';

const FAPI_POLICY = `upstream: public
auth: bearer
message_signing: fapi-2
routes:
  - { method: GET, path: /v1/fapi/accounts, scopes: [sales] }
  - { method: POST, path: /v1/fapi/payments, scopes: [sales] }
  - { method: POST, path: /v1/fapi/delegated, scopes: [sales], digest: upstream }
`;

interface Setup {
  tg: TestGateway;
  base: string;
  clientId: string;
  ed25519: TestKeyPair;
  p256: TestKeyPair;
}

async function setup(t: Test, config: Record<string, unknown> = {}): Promise<Setup> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const tg = await startTestGateway(t, {
    config: { issuer: base, decision_port: 0, trusted_proxies: ['127.0.0.1/32'], policies_dir: policyDirWith(t, { 'fapi.yaml': FAPI_POLICY }), ...config },
  });
  await tg.gateway.publicApp.listen({ host: '127.0.0.1', port });
  const ed25519 = keyPair('Ed25519', 'k1');
  const p256 = keyPair('P-256', 'k2');
  const client = await createClient(tg, ['sales'], { token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [ed25519.publicJwk, p256.publicJwk] } });
  return { tg, base, clientId: client.client_id, ed25519, p256 };
}

/** A token for the client, by private_key_jwt; with `dpopKey`, bound to it. */
async function tokenFor(s: Setup, dpopKey?: KeyObject): Promise<string> {
  const assertion = signAssertion({ alg: 'EdDSA', kid: 'k1' }, claimsFor(s.clientId, s.base), s.ed25519);
  const headers: Record<string, string> = dpopKey ? { dpop: dpopProof(dpopKey, { method: 'POST', url: `${s.base}/v1/oauth/token` }) } : {};
  const response = await tokenRequest(
    s.tg,
    {
      grant_type: 'client_credentials',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: assertion,
      scope: 'sales',
    },
    { host: new URL(s.base).host, ...headers },
  );
  if (response.statusCode !== 200) throw new Error(`token request failed: ${response.statusCode} ${response.body}`);
  return response.json<{ access_token: string }>().access_token;
}

/** The gateway's published response-signing key, as the independent verifier looks keys up. */
async function responseKey(base: string): Promise<{ kid: string; key: KeyObject }> {
  const response = await fetch(`${base}${RESPONSE_SIGNING_JWKS_PATH}`);
  const jwks = (await response.json()) as { keys: Array<Record<string, string>> };
  const jwk = jwks.keys[0]!;
  return { kid: jwk.kid!, key: createPublicKey({ key: { kty: jwk.kty!, crv: jwk.crv!, x: jwk.x! }, format: 'jwk' }) };
}

/** The response's signature checked by http-message-signatures: tag, coverage and the key the gateway publishes. */
async function responseVerifies(base: string, response: { status: number; headers: Headers }, request: SignedMessage): Promise<boolean | null> {
  const published = await responseKey(base);
  return httpbis.verifyMessage(
    {
      keyLookup: async (params) =>
        params.keyid === published.kid && params.tag === 'fapi-2-response'
          ? { id: published.kid, algs: ['ed25519'], verify: async (data, signature) => verify(null, data, published.key, signature) }
          : null,
      // The package compares names without their parameters: these are @status and the req-bound request components.
      requiredFields: ['@status', '@method', '@target-uri', 'signature'],
      requiredParams: ['created', 'keyid', 'tag'],
      maxAge: 60,
    },
    { status: response.status, headers: Object.fromEntries(response.headers.entries()) },
    request,
  );
}

/** Sends a request the SDK signed with the Ed25519 key; returns what was sent, the response and its body. */
async function sendSigned(s: Setup, method: string, path: string, token: string, body?: string, extra: Record<string, string> = {}) {
  const url = `${s.base}${path}`;
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...extra };
  const signed = signFapiRequest({ method, url, headers, body, privateKey: s.ed25519.privateKey, keyid: 'k1' });
  const sent = { method, url, headers: { ...headers, ...signed.headers } };
  const response = await fetch(url, { method, headers: sent.headers, body });
  return { sent, response, text: await response.text() };
}

t.test('a request signed by the SDK passes; its response is signed and verifies with an independent implementation', async (t) => {
  const s = await setup(t);
  const token = await tokenFor(s);
  const before = s.tg.upstreams.public.received.length;
  const policy = await s.tg.gateway.adminApp.inject({ method: 'GET', url: '/admin/v1/policy', headers: { authorization: `Bearer ${s.tg.adminToken}` } });
  const routes = policy.json<{ routes: Array<{ path: string; message_signing: string }> }>().routes;
  t.match(
    routes.find((route) => route.path === '/v1/fapi/payments'),
    { message_signing: 'fapi-2' },
    'the admin API shows which routes are signed',
  );
  t.match(
    routes.find((route) => route.path === '/v1/sales'),
    { message_signing: 'none' },
  );

  const { sent, response, text } = await sendSigned(s, 'POST', '/v1/fapi/payments?dry_run=1', token, '{"amount":"10.00"}');
  t.equal(response.status, 200, text);
  const reached = s.tg.upstreams.public.received.slice(before);
  t.equal(reached.length, 1);
  t.equal(reached[0]!.body, '{"amount":"10.00"}', 'the upstream gets exactly the verified body');
  t.equal(reached[0]!.headers.authorization, undefined, 'and neither the token');
  t.equal(reached[0]!.headers.signature, undefined, 'nor the signature');
  t.equal(reached[0]!.headers['x-gateway-client-id'], s.clientId);

  t.match(response.headers.get('content-digest'), /^sha-256=:[A-Za-z0-9+/]+=*:$/, 'the response carries the digest of the body it sends');
  t.match(
    response.headers.get('signature-input'),
    /^sig1=\("@status" "content-type" "content-digest" "@method";req "@target-uri";req "content-digest";req "signature";req;key="sig1" "signature-input";req;key="sig1"\);created=\d+;alg="ed25519";keyid="[A-Za-z0-9_-]{43}";tag="fapi-2-response"$/,
  );
  t.equal(await responseVerifies(s.base, response, sent), true, 'http-message-signatures verifies the response against the request it answers');

  const altered = new Headers(response.headers);
  altered.set('content-type', 'text/plain');
  t.equal(await responseVerifies(s.base, { status: response.status, headers: altered }, sent), false, 'an altered response does not verify');
  const otherRequest = { ...sent, url: `${s.base}/v1/fapi/payments?dry_run=0` };
  t.equal(await responseVerifies(s.base, response, otherRequest), false, 'nor does the response for another request');
});

t.test('a request signed by http-message-signatures with the P-256 key passes', async (t) => {
  const s = await setup(t);
  const token = await tokenFor(s);
  const url = `${s.base}/v1/fapi/accounts?page=2`;
  const request = await httpbis.signMessage(
    {
      key: { id: 'k2', alg: 'ecdsa-p256-sha256', sign: async (data) => signHttpMessage(data.toString('utf8'), s.p256.privateKey) },
      fields: ['@method', '@target-uri', 'authorization'],
      params: ['created', 'keyid', 'alg', 'tag'],
      paramValues: { tag: FAPI_REQUEST_TAG },
      name: 'fapi',
    },
    { method: 'GET', url, headers: { authorization: `Bearer ${token}` } },
  );
  const response = await fetch(url, { headers: request.headers as Record<string, string> });
  t.equal(response.status, 200, await response.clone().text());
  t.match(response.headers.get('signature-input'), /"signature";req;key="fapi"/, 'the response covers the request signature by its label');
  t.notOk(response.headers.get('content-digest') === null, 'the echoed body has a digest');
  t.equal(await responseVerifies(s.base, response, request), true);
});

t.test('each refusal: 401 with its code, the upstream untouched', async (t) => {
  const s = await setup(t);
  const token = await tokenFor(s);
  const path = '/v1/fapi/payments';
  const url = `${s.base}${path}`;
  const body = '{"amount":"1.00"}';
  const baseHeaders = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const sign = (overrides: Partial<Parameters<typeof signFapiRequest>[0]> = {}) =>
    signFapiRequest({ method: 'POST', url, headers: baseHeaders, body, privateKey: s.ed25519.privateKey, keyid: 'k1', ...overrides }).headers;
  const foreign = keyPair('Ed25519');
  const now = Math.floor(Date.now() / 1000);

  const cases: Array<[string, Record<string, string>, string, string?]> = [
    ['no signature', {}, 'signature_missing'],
    ['another tag', { ...sign(), 'signature-input': sign()['signature-input']!.replace('fapi-2-request', 'other') }, 'signature_missing'],
    ['created two minutes ago', sign({ created: now - 120 }), 'signature_expired'],
    ['created in the future', sign({ created: now + 600 }), 'signature_not_yet_valid'],
    ['a keyid the client has not registered', sign({ keyid: 'k9' }), 'signature_keyid_mismatch'],
    ['a key the client has not registered', sign({ privateKey: foreign.privateKey }), 'signature_invalid'],
    ['the P-256 kid with an Ed25519 signature', sign({ keyid: 'k2' }), 'signature_algorithm_unsupported'],
    ['a body other than the signed one', sign({ body: '{"amount":"9999.00"}' }), 'digest_mismatch'],
    [
      'signed for another path',
      signFapiRequest({ method: 'POST', url: `${s.base}/v1/fapi/delegated`, headers: baseHeaders, body, privateKey: s.ed25519.privateKey, keyid: 'k1' })
        .headers,
      'signature_invalid',
    ],
  ];
  const uncovered = signFapiRequest({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json', authorization: 'x' },
    body,
    privateKey: s.ed25519.privateKey,
    keyid: 'k1',
  });
  cases.push([
    'authorization not covered',
    { ...uncovered.headers, 'signature-input': uncovered.headers['signature-input']!.replace(' "authorization"', '') },
    'signature_components_missing',
  ]);

  for (const [name, headers, code] of cases) {
    const before = s.tg.upstreams.public.received.length;
    const response = await fetch(url, { method: 'POST', headers: { ...baseHeaders, ...headers }, body });
    const answer = (await response.json()) as { error: string; signature_base?: string };
    t.equal(response.status, 401, name);
    t.equal(answer.error, code, name);
    t.equal(s.tg.upstreams.public.received.length, before, `${name}: the upstream was not contacted`);
    if (code === 'signature_invalid') t.notOk(answer.signature_base?.includes(token), `${name}: the base shown leaves out the token`);
  }

  const replayed = sign({ nonce: 'n-1' });
  const first = await fetch(url, { method: 'POST', headers: { ...baseHeaders, ...replayed }, body });
  t.equal(first.status, 200);
  const again = await fetch(url, { method: 'POST', headers: { ...baseHeaders, ...replayed }, body });
  t.equal(again.status, 401, 'a signature sent twice');
  t.equal(((await again.json()) as { error: string }).error, 'nonce_replayed');

  const secretClient = await createClient(s.tg, ['sales']);
  const secretToken = (
    await tokenRequest(s.tg, { grant_type: 'client_credentials', client_id: secretClient.client_id, client_secret: secretClient.client_secret })
  ).json<{ access_token: string }>().access_token;
  const noKeys = await fetch(url, {
    method: 'POST',
    headers: { ...baseHeaders, authorization: `Bearer ${secretToken}`, ...sign({ headers: { ...baseHeaders, authorization: `Bearer ${secretToken}` } }) },
    body,
  });
  t.equal(noKeys.status, 401, 'a client without registered keys cannot sign');
  t.match(((await noKeys.json()) as { message: string }).message, /the client has no registered keys/);
});

t.test('with a DPoP-bound token the signature must cover the proof', async (t) => {
  const s = await setup(t);
  const dpopKey = keyPair('Ed25519').privateKey;
  const token = await tokenFor(s, dpopKey);
  const url = `${s.base}/v1/fapi/accounts`;
  const headers = { authorization: `DPoP ${token}`, dpop: dpopProof(dpopKey, { method: 'GET', url, accessToken: token }) };
  const signed = signFapiRequest({ method: 'GET', url, headers, privateKey: s.ed25519.privateKey, keyid: 'k1' });
  t.match(signed.headers['signature-input'], /"authorization" "dpop"\)/);
  const response = await fetch(url, { headers: { ...headers, ...signed.headers } });
  t.equal(response.status, 200, await response.clone().text());

  const fresh = { authorization: `DPoP ${token}`, dpop: dpopProof(dpopKey, { method: 'GET', url, accessToken: token }) };
  const withoutProof = signFapiRequest({ method: 'GET', url, headers: { authorization: fresh.authorization }, privateKey: s.ed25519.privateKey, keyid: 'k1' });
  const before = s.tg.upstreams.public.received.length;
  const refused = await fetch(url, { headers: { ...fresh, ...withoutProof.headers } });
  t.equal(refused.status, 401);
  t.match(await refused.json(), { error: 'signature_components_missing', message: /"dpop"/ });
  t.equal(s.tg.upstreams.public.received.length, before, 'the upstream was not contacted');
});

t.test('the decision listener checks the signature and the body an edge sends, and refuses a body it cannot see', async (t) => {
  const s = await setup(t);
  const token = await tokenFor(s);
  // As Envoy's HTTP ext_authz asks: the original method and path; with with_request_body the body, marked by x-envoy-auth-partial-body.
  const decide = (path: string, headers: Record<string, string>, body: string | undefined) =>
    s.tg.gateway.decisionListener!.inject({
      method: 'POST',
      url: `/envoy${path}`,
      headers: {
        ...headers,
        host: 'api.bank.test',
        'x-forwarded-proto': 'https',
        'x-forwarded-for': '198.51.100.7',
        ...(body === undefined ? {} : { 'x-envoy-auth-partial-body': 'false' }),
      },
      ...(body === undefined ? {} : { payload: body }),
    });
  const body = '{"amount":"5.00"}';
  const signedFor = (path: string) =>
    signFapiRequest({
      method: 'POST',
      url: `https://api.bank.test${path}`,
      headers: { authorization: `Bearer ${token}` },
      body,
      privateKey: s.ed25519.privateKey,
      keyid: 'k1',
    }).headers;
  const common = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

  const allowed = await decide('/v1/fapi/payments', { ...common, ...signedFor('/v1/fapi/payments') }, body);
  t.equal(allowed.statusCode, 200, allowed.body);
  t.equal(allowed.headers['x-gateway-client-id'], s.clientId);

  const tampered = await decide('/v1/fapi/payments', { ...common, ...signedFor('/v1/fapi/payments') }, '{"amount":"500.00"}');
  t.equal(tampered.statusCode, 401);
  t.equal(tampered.json<{ error: string }>().error, 'digest_mismatch', 'the decision checks the bytes it was sent');

  // The edge kept the body (no with_request_body): refused unless the route delegates the check.
  const withheld = await decide('/v1/fapi/payments', { ...common, ...signedFor('/v1/fapi/payments') }, undefined);
  t.equal(withheld.statusCode, 403, withheld.body);
  t.equal(withheld.json<{ error: string }>().error, 'body_not_checkable');
  const delegated = await decide('/v1/fapi/delegated', { ...common, ...signedFor('/v1/fapi/delegated') }, undefined);
  t.equal(delegated.statusCode, 200, delegated.body);
  t.equal(delegated.headers['x-gateway-digest'], 'upstream', 'the decision says the upstream checks the body');
});

t.test('an upstream answer over max_signed_response_bytes is 502, never sent unsigned', async (t) => {
  const s = await setup(t, { max_signed_response_bytes: 1024 });
  const token = await tokenFor(s);
  const small = await sendSigned(s, 'GET', '/v1/fapi/accounts', token);
  t.ok(small.text.length < 1024, 'the echo of a small request fits');
  t.equal(small.response.status, 200);
  const large = await sendSigned(s, 'POST', '/v1/fapi/payments', token, JSON.stringify({ memo: 'x'.repeat(1500) }));
  t.equal(large.response.status, 502);
  t.equal((JSON.parse(large.text) as { error: string }).error, 'upstream_response_too_large');
  t.equal(large.response.headers.get('signature'), null);
});
