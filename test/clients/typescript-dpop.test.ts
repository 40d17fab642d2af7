// The client package's DPoP proofs (clients/typescript/src/dpop.ts): with each key type it accepts,
// a proof gets a DPoP-bound token from a listening gateway and the next one calls a route with it;
// the thumbprint it reports is the token's cnf.jkt and what the upstream receives. Keys the
// gateway would refuse are refused here first.
import { generateKeyPairSync } from 'node:crypto';
import t from 'tap';
import { dpopProof, dpopThumbprint } from '../../clients/typescript/src/index.js';
import { checkDpopProof } from '../../gateway/oauth/dpop-proof.js';
import { startTestGateway } from '../helpers/gateway.js';
import { listen } from '../helpers/http.js';
import { createClient } from '../helpers/oauth.js';

t.test('a proof of each key type gets a bound token and calls a route with it', async (t) => {
  const tg = await startTestGateway(t, { config: { issuer: 'http://127.0.0.1' } });
  const { publicUrl } = await listen(tg);
  const client = await createClient(tg, ['sales']);
  const keys = {
    Ed25519: generateKeyPairSync('ed25519').privateKey,
    'P-256': generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey,
    'RSA-2048': generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey,
  };
  for (const [label, key] of Object.entries(keys)) {
    const issued = await fetch(`${publicUrl}/v1/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', dpop: dpopProof(key, { method: 'POST', url: 'http://127.0.0.1/v1/oauth/token' }) },
      body: new URLSearchParams({ client_id: client.client_id, client_secret: client.client_secret, scope: 'sales' }),
    });
    const body = (await issued.json()) as { access_token: string; token_type: string };
    t.equal(issued.status, 200, `${label}: ${JSON.stringify(body)}`);
    t.equal(body.token_type, 'DPoP', label);
    const claims = JSON.parse(Buffer.from(body.access_token.split('.')[1]!, 'base64url').toString()) as { cnf: { jkt: string } };
    t.equal(claims.cnf.jkt, dpopThumbprint(key), `${label}: dpopThumbprint is the token's cnf.jkt`);

    const url = `${publicUrl}/v1/sales?page=1`;
    const response = await fetch(url, {
      headers: { authorization: `DPoP ${body.access_token}`, dpop: dpopProof(key, { method: 'GET', url, accessToken: body.access_token }) },
    });
    t.equal(response.status, 200, `${label}: the route answers`);
    t.equal(tg.upstreams.public.received.at(-1)!.headers['x-gateway-dpop-jkt'], dpopThumbprint(key), `${label}: the upstream gets the thumbprint`);
  }
});

t.test('proof claims as RFC 9449 4.2 says; keys the gateway refuses are refused here', async (t) => {
  const key = generateKeyPairSync('ed25519').privateKey;
  const now = new Date('2026-11-27T00:00:00Z');
  const proof = dpopProof(key, { method: 'GET', url: 'https://api.test/v1/sales?x=1#f', accessToken: 'token', nonce: 'n-1', now });
  const [header, payload] = proof
    .split('.')
    .slice(0, 2)
    .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()) as Record<string, unknown>);
  t.match(header, { typ: 'dpop+jwt', alg: 'EdDSA', jwk: { kty: 'OKP', crv: 'Ed25519' } });
  t.notOk('d' in (header!.jwk as object), 'the jwk is public');
  t.match(payload, { htm: 'GET', htu: 'https://api.test/v1/sales', iat: now.getTime() / 1000, nonce: 'n-1' });
  t.not(
    JSON.parse(Buffer.from(dpopProof(key, { method: 'GET', url: 'https://api.test/' }).split('.')[1]!, 'base64url').toString()).jti,
    payload!.jti,
    'a new jti each time',
  );
  const checked = checkDpopProof(proof, {
    algorithms: ['EdDSA'],
    method: 'GET',
    url: 'https://api.test/v1/sales',
    accessToken: 'token',
    nowSeconds: now.getTime() / 1000,
    maxAgeSeconds: 60,
  });
  t.equal(checked.jkt, dpopThumbprint(key), "the gateway's checker accepts it");
  for (const [label, other] of [
    ['P-384', generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey],
    ['RSA-1024', generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey],
    ['Ed448', generateKeyPairSync('ed448').privateKey],
  ] as const) {
    t.throws(() => dpopProof(other, { method: 'GET', url: 'https://api.test/' }), TypeError, `${label} is refused`);
  }
  t.throws(() => dpopProof(generateKeyPairSync('ed25519').publicKey, { method: 'GET', url: 'https://api.test/' }), TypeError, 'a public key signs nothing');
});
