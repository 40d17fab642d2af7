// DPoP-bound access tokens (RFC 9449) end to end: panva's openid-client, an independent client, gets
// a DPoP-bound token with its own proofs and calls a protected route with it, through the proxy and
// through an edge that asks the decision listener; the upstream sees the key's thumbprint and
// neither Authorization nor DPoP. Then every refusal of
// section 7: the bound token as Bearer (a stolen token without the key), a proof replayed, made for
// another URL, method or token, or with another key, each 401 invalid_dpop_proof or invalid_token
// with a DPoP challenge and the upstream untouched; a client registered dpop_bound_access_tokens
// without a proof; introspection's cnf; the decision listener on the request an edge describes; and
// a proof used on one instance refused on another.
import { createHash, generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import { webcrypto } from 'node:crypto';
import * as oidc from 'openid-client';
import t, { type Test } from 'tap';
import { accessTokenHash } from '../../gateway/oauth/dpop-proof.js';
import { decisionConfig } from '../decision/decision-policies.js';
import { freePort } from '../helpers/gateway-process.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { createClient } from '../helpers/oauth.js';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A DPoP key of the test's own, making proofs as RFC 9449 4.2 describes. */
function dpopKey(): { jwk: Record<string, string>; jkt: string; proof: (htm: string, htu: string, token?: string, claims?: object) => string } {
  const { privateKey, publicKey }: { privateKey: KeyObject; publicKey: KeyObject } = generateKeyPairSync('ed25519');
  const jwk = publicKey.export({ format: 'jwk' }) as Record<string, string>;
  const jkt = createHash('sha256')
    .update(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x }))
    .digest('base64url');
  return {
    jwk,
    jkt,
    proof: (htm, htu, token, claims = {}) => {
      const payload = { jti: randomUUID(), htm, htu, iat: Math.floor(Date.now() / 1000), ...(token ? { ath: accessTokenHash(token) } : {}), ...claims };
      const input = `${b64({ typ: 'dpop+jwt', alg: 'EdDSA', jwk })}.${b64(payload)}`;
      return `${input}.${sign(null, Buffer.from(input), privateKey).toString('base64url')}`;
    },
  };
}

async function listening(t: Test, config: Record<string, unknown> = {}): Promise<{ tg: TestGateway; issuer: string }> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const tg = await startTestGateway(t, { config: { issuer, ...config } });
  await tg.gateway.publicApp.listen({ host: '127.0.0.1', port });
  return { tg, issuer };
}

async function dpopToken(tg: TestGateway, issuer: string, key: ReturnType<typeof dpopKey>, client: { client_id: string; client_secret?: string }) {
  const response = await fetch(`${issuer}/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', dpop: key.proof('POST', `${issuer}/v1/oauth/token`) },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret!, scope: 'sales' }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
}

t.test('openid-client: a private_key_jwt client gets a DPoP-bound token and calls a route with it, through the proxy and an edge', async (t) => {
  const { tg, issuer } = await listening(t, decisionConfig(t));
  const metadata = (await (await fetch(`${issuer}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
  t.same(metadata.dpop_signing_alg_values_supported, ['EdDSA', 'Ed25519', 'ES256', 'PS256'], 'the proof algorithms are advertised');

  const clientKey = (await webcrypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const created = await tg.gateway.adminApp.inject({
    method: 'POST',
    url: '/admin/v1/clients',
    headers: { authorization: `Bearer ${tg.adminToken}` },
    payload: {
      name: 'dpop client',
      scopes: ['sales'],
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [{ ...(await webcrypto.subtle.exportKey('jwk', clientKey.publicKey)), kid: 'k1' }] },
      dpop_bound_access_tokens: true,
    },
  });
  t.equal(created.statusCode, 201, created.body);
  t.equal(created.json<{ dpop_bound_access_tokens: boolean }>().dpop_bound_access_tokens, true);
  const clientId = created.json<{ client_id: string }>().client_id;
  const config = await oidc.discovery(new URL(issuer), clientId, undefined, oidc.PrivateKeyJwt({ key: clientKey.privateKey, kid: 'k1' }), {
    algorithm: 'oauth2',
    execute: [oidc.allowInsecureRequests],
  });

  const refused = await oidc.clientCredentialsGrant(config, { scope: 'sales' }).then(
    () => undefined,
    (error: unknown) => error as { error?: string; status?: number },
  );
  t.equal(refused?.error, 'invalid_dpop_proof', 'a client registered dpop_bound_access_tokens must send a proof');
  t.equal(refused?.status, 400);

  const dpopPair = await oidc.randomDPoPKeyPair('EdDSA');
  const handle = oidc.getDPoPHandle(config, dpopPair);
  const tokens = await oidc.clientCredentialsGrant(config, { scope: 'sales' }, { DPoP: handle });
  t.equal(tokens.token_type, 'dpop', 'token_type DPoP (openid-client lower-cases it)');
  const jwk = await webcrypto.subtle.exportKey('jwk', dpopPair.publicKey);
  const jkt = createHash('sha256')
    .update(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x }))
    .digest('base64url');
  t.same(claimsOf(tokens.access_token).cnf, { jkt }, "the token is bound to the proof's key (cnf.jkt)");

  const before = tg.upstreams.public.received.length;
  const response = await oidc.fetchProtectedResource(config, tokens.access_token, new URL(`${issuer}/v1/sales`), 'GET', undefined, undefined, { DPoP: handle });
  t.equal(response.status, 200, 'the route answers through the proxy');
  const reached = tg.upstreams.public.received.slice(before);
  t.equal(reached.length, 1);
  t.equal(reached[0]!.headers['x-gateway-dpop-jkt'], jkt, 'the upstream gets the key thumbprint');
  t.equal(reached[0]!.headers['x-gateway-client-id'], clientId);
  t.equal(reached[0]!.headers.authorization, undefined, 'and no Authorization');
  t.equal(reached[0]!.headers.dpop, undefined, 'and no DPoP');

  // Through an edge proxy: openid-client calls https://api.test/v1/sales (its proof names that URL),
  // and the edge (this fetch) asks the decision listener as Envoy's ext_authz does.
  config[oidc.customFetch] = async (url, options) => {
    const target = new URL(url);
    if (target.host !== 'api.test') return fetch(url, options);
    const headers = Object.fromEntries(new Headers(options.headers as ConstructorParameters<typeof Headers>[0]).entries());
    const decided = await tg.gateway.decisionListener!.inject({
      method: 'GET',
      url: `/envoy${target.pathname}${target.search}`,
      headers: { ...headers, host: 'api.test', 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.7' },
    });
    return new Response(decided.body, { status: decided.statusCode, headers: { 'x-gateway-dpop-jkt': String(decided.headers['x-gateway-dpop-jkt'] ?? '') } });
  };
  const decided = await oidc.fetchProtectedResource(config, tokens.access_token, new URL('https://api.test/v1/sales?page=2'), 'GET', undefined, undefined, {
    DPoP: handle,
  });
  t.equal(decided.status, 200, 'the decision listener allows it, checking the proof against the URL the edge describes');
  t.equal(decided.headers.get('x-gateway-dpop-jkt'), jkt, 'and vouches for the key thumbprint');

  const asBearer = await fetch(`${issuer}/v1/sales`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
  t.equal(asBearer.status, 401, 'the bound token sent as Bearer is refused: a stolen copy is worth nothing');
  t.equal(((await asBearer.json()) as { error: string }).error, 'invalid_token');
  t.match(asBearer.headers.get('www-authenticate'), /the token is DPoP-bound/);
  t.equal(tg.upstreams.public.received.length, before + 1, 'the upstream was not contacted');
});

t.test('each refusal of a DPoP request: 401 with a DPoP challenge, the upstream untouched', async (t) => {
  const { tg, issuer } = await listening(t);
  const client = await createClient(tg, ['sales']);
  const key = dpopKey();
  const issued = await dpopToken(tg, issuer, key, client);
  t.equal(issued.status, 200, JSON.stringify(issued.body));
  t.equal(issued.body.token_type, 'DPoP');
  const token = issued.body.access_token as string;
  t.same(claimsOf(token).cnf, { jkt: key.jkt });
  const url = `${issuer}/v1/sales`;
  const call = (headers: Record<string, string>) => fetch(url, { headers });
  const before = tg.upstreams.public.received.length;

  const good = key.proof('GET', url, token);
  t.equal((await call({ authorization: `DPoP ${token}`, dpop: good })).status, 200, 'a fresh proof passes');
  const replayed = await call({ authorization: `DPoP ${token}`, dpop: good });
  t.equal(replayed.status, 401, 'the same proof again is refused');
  t.match(await replayed.json(), { error: 'invalid_dpop_proof', message: /used before/ });
  t.match(replayed.headers.get('www-authenticate'), /^DPoP algs="EdDSA Ed25519 ES256 PS256", error="invalid_dpop_proof"/);

  const other = dpopKey();
  const cases: [string, Record<string, string>, string][] = [
    ['no proof', { authorization: `DPoP ${token}` }, 'invalid_dpop_proof'],
    ['two proofs', { authorization: `DPoP ${token}`, dpop: `${key.proof('GET', url, token)}, ${key.proof('GET', url, token)}` }, 'invalid_dpop_proof'],
    ['another URL', { authorization: `DPoP ${token}`, dpop: key.proof('GET', `${issuer}/v1/products`, token) }, 'invalid_dpop_proof'],
    ['another method', { authorization: `DPoP ${token}`, dpop: key.proof('POST', url, token) }, 'invalid_dpop_proof'],
    ["another token's ath", { authorization: `DPoP ${token}`, dpop: key.proof('GET', url, `${token}x`) }, 'invalid_dpop_proof'],
    ['another key', { authorization: `DPoP ${token}`, dpop: other.proof('GET', url, token) }, 'invalid_dpop_proof'],
    [
      'an old proof',
      { authorization: `DPoP ${token}`, dpop: key.proof('GET', url, token, { iat: Math.floor(Date.now() / 1000) - 120 }) },
      'invalid_dpop_proof',
    ],
    ['as Bearer', { authorization: `Bearer ${token}`, dpop: key.proof('GET', url, token) }, 'invalid_token'],
  ];
  for (const [what, headers, error] of cases) {
    const response = await call(headers);
    t.equal(response.status, 401, what);
    t.equal(((await response.json()) as { error: string }).error, error, what);
  }
  t.equal(tg.upstreams.public.received.length, before + 1, 'only the one good request reached the upstream');

  const bearer = await fetch(`${issuer}/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: client.client_id, client_secret: client.client_secret, scope: 'sales' }),
  });
  const plain = (await bearer.json()) as { access_token: string; token_type: string };
  t.equal(plain.token_type, 'Bearer', 'without a proof, a Bearer token as before');
  const unbound = await call({ authorization: `DPoP ${plain.access_token}`, dpop: key.proof('GET', url, plain.access_token) });
  t.equal(unbound.status, 401, 'a Bearer token is not sent as DPoP');
  t.match(unbound.headers.get('www-authenticate'), /error="invalid_token", error_description="the token is not DPoP-bound/);

  const tokenReplay = await fetch(`${issuer}/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', dpop: key.proof('POST', `${issuer}/v1/oauth/token`, undefined, { jti: 'once' }) },
    body: new URLSearchParams({ client_id: client.client_id, client_secret: client.client_secret, scope: 'sales' }),
  });
  t.equal(tokenReplay.status, 200);
  const again = await fetch(`${issuer}/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', dpop: key.proof('POST', `${issuer}/v1/oauth/token`, undefined, { jti: 'once' }) },
    body: new URLSearchParams({ client_id: client.client_id, client_secret: client.client_secret, scope: 'sales' }),
  });
  t.equal(again.status, 400, 'a proof jti used at the token endpoint is refused there again (RFC 9449: 400)');
  t.match(await again.json(), { error: 'invalid_dpop_proof' });
  const wrongHtu = await fetch(`${issuer}/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', dpop: key.proof('POST', `${issuer}/v1/sales`) },
    body: new URLSearchParams({ client_id: client.client_id, client_secret: client.client_secret, scope: 'sales' }),
  });
  t.equal(wrongHtu.status, 400, 'a proof for another URL gets no token');
});

t.test("introspection answers a bound token's cnf and type", async (t) => {
  const { tg, issuer } = await listening(t);
  const client = await createClient(tg, ['sales']);
  const server = await createClient(tg, ['sales'], { resource_server: true });
  const key = dpopKey();
  const token = (await dpopToken(tg, issuer, key, client)).body.access_token as string;
  const response = await fetch(`${issuer}/v1/oauth/introspect`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: server.client_id, client_secret: server.client_secret, token }),
  });
  t.match(await response.json(), { active: true, token_type: 'DPoP', cnf: { jkt: key.jkt } });
});

t.test('the decision listener checks the proof against the request the edge describes', async (t) => {
  const { tg, issuer } = await listening(t, decisionConfig(t));
  const client = await createClient(tg, ['sales']);
  const key = dpopKey();
  const token = (await dpopToken(tg, issuer, key, client)).body.access_token as string;
  const ask = (proof: string) =>
    tg.gateway.decisionListener!.inject({
      method: 'GET',
      url: '/envoy/v1/sales?page=2',
      headers: { host: 'api.test', 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.7', authorization: `DPoP ${token}`, dpop: proof },
    });
  const allowed = await ask(key.proof('GET', 'https://api.test/v1/sales', token));
  t.equal(allowed.statusCode, 200, allowed.body);
  t.equal(allowed.headers['x-gateway-dpop-jkt'], key.jkt, 'the thumbprint is among the identity headers');
  const elsewhere = await ask(key.proof('GET', `${issuer}/v1/sales`, token));
  t.equal(elsewhere.statusCode, 401, "a proof for the gateway's own URL is not one for the edge's");
  t.equal(elsewhere.json<{ error: string }>().error, 'invalid_dpop_proof');
});

t.test('a proof used on one instance is refused on another', async (t) => {
  const first = await listening(t);
  const second = await startTestGateway(t, { redisPrefix: first.tg.redisPrefix!, config: { issuer: first.issuer } });
  const client = await createClient(first.tg, ['sales']);
  const key = dpopKey();
  const token = (await dpopToken(first.tg, first.issuer, key, client)).body.access_token as string;
  const proof = key.proof('GET', `${first.issuer}/v1/sales`, token);
  const headers = { host: new URL(first.issuer).host, authorization: `DPoP ${token}`, dpop: proof };
  const onFirst = await first.tg.gateway.publicApp.inject({ method: 'GET', url: '/v1/sales', headers });
  t.equal(onFirst.statusCode, 200, onFirst.body);
  const onSecond = await second.gateway.publicApp.inject({ method: 'GET', url: '/v1/sales', headers });
  t.equal(onSecond.statusCode, 401, 'the second instance knows the jti was used');
  t.equal(onSecond.json<{ error: string }>().error, 'invalid_dpop_proof');
  t.equal(second.upstreams.public.received.length, 0);
});
