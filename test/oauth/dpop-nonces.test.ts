// Server-provided DPoP nonces (RFC 9449 sections 8 and 9). The nonce itself, on a fake clock: one
// period's and the next one's are accepted, an older one or another key's is not, and anything a
// client makes up is refused. End to end: openid-client, which answers use_dpop_nonce by itself,
// gets a token and calls a route; a proof without the nonce is refused with one (400 at the token
// endpoint, 401 with the DPoP challenge on a route, the upstream untouched); and a nonce one
// instance issued is accepted by another.
import { webcrypto } from 'node:crypto';
import fc from 'fast-check';
import * as oidc from 'openid-client';
import t from 'tap';
import { DpopNonces } from '../../gateway/oauth/dpop-nonces.js';
import { dpopProof } from '@access-gateway/signing';
import { keyPair } from '../helpers/client-assertion.js';
import { freePort } from '../helpers/gateway-process.js';
import { startTestGateway } from '../helpers/gateway.js';
import { createClient, tokenRequest } from '../helpers/oauth.js';
import { holds } from '../helpers/property.js';

t.test('a nonce lives one to two periods, and only the gateway makes one', async (t) => {
  let now = 1_000_000;
  const key = Buffer.alloc(32, 7);
  const nonces = new DpopNonces(
    () => key,
    60,
    () => now,
  );
  const issued = nonces.current();
  t.ok(nonces.accepts(issued));
  now += 60;
  t.ok(nonces.accepts(issued), 'the next period still accepts it');
  t.not(nonces.current(), issued, 'and hands out a new one');
  now += 60;
  t.notOk(nonces.accepts(issued), 'two periods on it is refused');
  t.notOk(
    new DpopNonces(
      () => Buffer.alloc(32, 8),
      60,
      () => now,
    ).accepts(nonces.current()),
    "another key's nonce is refused",
  );
  t.notOk(nonces.accepts(undefined));
  holds(
    t,
    fc.property(fc.string({ maxLength: 80 }), (made) => made === nonces.current() || !nonces.accepts(made)),
    500,
  );
  const [period, mac] = nonces.current().split('.');
  holds(
    t,
    fc.property(fc.integer({ min: 0, max: 21 }), fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef0123456789-_'), (at, c) => {
      const changed = `${period}.${mac!.slice(0, at)}${c}${mac!.slice(at + 1)}`;
      return changed === nonces.current() || !nonces.accepts(changed);
    }),
    300,
  );
});

t.test('with nonces on: openid-client copes by itself; a proof without one is refused with one; another instance accepts it', async (t) => {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const tg = await startTestGateway(t, { config: { issuer, dpop_nonce_seconds: 300 } });
  await tg.gateway.publicApp.listen({ host: '127.0.0.1', port });

  const clientKey = (await webcrypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const created = await createClient(tg, ['sales'], {
    token_endpoint_auth_method: 'private_key_jwt',
    jwks: { keys: [{ ...(await webcrypto.subtle.exportKey('jwk', clientKey.publicKey)), kid: 'k1' }] },
  });
  const config = await oidc.discovery(new URL(issuer), created.client_id, undefined, oidc.PrivateKeyJwt({ key: clientKey.privateKey, kid: 'k1' }), {
    algorithm: 'oauth2',
    execute: [oidc.allowInsecureRequests],
  });
  const handle = oidc.getDPoPHandle(config, await oidc.randomDPoPKeyPair('EdDSA'));
  const tokens = await oidc.clientCredentialsGrant(config, { scope: 'sales' }, { DPoP: handle });
  t.equal(tokens.token_type, 'dpop', 'openid-client got a token, answering use_dpop_nonce with the nonce');
  const called = await oidc.fetchProtectedResource(config, tokens.access_token, new URL(`${issuer}/v1/sales`), 'GET', undefined, undefined, { DPoP: handle });
  t.equal(called.status, 200, 'and called the route with it');

  // By hand: the token endpoint and a route each refuse a proof without the nonce, handing one out.
  const secretClient = await createClient(tg, ['sales']);
  const key = keyPair('Ed25519').privateKey;
  const tokenUrl = `${issuer}/v1/oauth/token`;
  const fields = { grant_type: 'client_credentials', client_id: secretClient.client_id, client_secret: secretClient.client_secret };
  const host = { host: new URL(issuer).host };
  const bare = await tokenRequest(tg, fields, { ...host, dpop: dpopProof(key, { method: 'POST', url: tokenUrl }) });
  t.equal(bare.statusCode, 400);
  t.equal(bare.json<{ error: string }>().error, 'use_dpop_nonce');
  const nonce = bare.headers['dpop-nonce'] as string;
  t.match(nonce, /^[0-9a-z]+\.[A-Za-z0-9_-]{22}$/);
  const issued = await tokenRequest(tg, fields, { ...host, dpop: dpopProof(key, { method: 'POST', url: tokenUrl, nonce }) });
  t.equal(issued.statusCode, 200, issued.body);
  t.equal(issued.headers['dpop-nonce'], nonce, 'the token response hands out the current nonce');
  const token = issued.json<{ access_token: string }>().access_token;

  const url = `${issuer}/v1/sales`;
  const before = tg.upstreams.public.received.length;
  const refused = await tg.gateway.publicApp.inject({
    method: 'GET',
    url: '/v1/sales',
    headers: { ...host, authorization: `DPoP ${token}`, dpop: dpopProof(key, { method: 'GET', url, accessToken: token }) },
  });
  t.equal(refused.statusCode, 401);
  t.equal(refused.json<{ error: string }>().error, 'use_dpop_nonce');
  t.match(refused.headers['www-authenticate'], /^DPoP algs="[^"]+", error="use_dpop_nonce", error_description="the proof must carry the nonce in DPoP-Nonce"$/);
  t.equal(refused.headers['dpop-nonce'], nonce);
  const made = await tg.gateway.publicApp.inject({
    method: 'GET',
    url: '/v1/sales',
    headers: { ...host, authorization: `DPoP ${token}`, dpop: dpopProof(key, { method: 'GET', url, accessToken: token, nonce: 'made-up' }) },
  });
  t.equal(made.statusCode, 401);
  t.match(made.headers['www-authenticate'], /error_description="the proof's nonce is not current"/);
  t.equal(tg.upstreams.public.received.length, before, 'the upstream was not contacted');

  const second = await startTestGateway(t, { redisPrefix: tg.redisPrefix!, config: { issuer, dpop_nonce_seconds: 300 } });
  const elsewhere = await second.gateway.publicApp.inject({
    method: 'GET',
    url: '/v1/sales',
    headers: { ...host, authorization: `DPoP ${token}`, dpop: dpopProof(key, { method: 'GET', url, accessToken: token, nonce }) },
  });
  t.equal(elsewhere.statusCode, 200, "another instance accepts the first one's nonce");
});
