// Interoperability of private_key_jwt: panva's openid-client, an independent client, discovers a
// listening gateway (RFC 8414: private_key_jwt and the signing algorithms advertised), signs its
// client assertion with its own code (WebCrypto) and gets a token that works on a public route, for
// an Ed25519 client (sent with the fully-specified alg Ed25519) and a P-256 (ES256) one.
import t from 'tap';
import { webcrypto } from 'node:crypto';
import * as oidc from 'openid-client';
import { startTestGateway } from '../helpers/gateway.js';
import { freePort } from '../helpers/gateway-process.js';

const ALGORITHMS = {
  Ed25519: { name: 'Ed25519' },
  ES256: { name: 'ECDSA', namedCurve: 'P-256' },
} as const;

t.test('openid-client PrivateKeyJwt gets a token for an Ed25519 and an ES256 client; the token works', async (t) => {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const tg = await startTestGateway(t, { config: { issuer } });
  await tg.gateway.publicApp.listen({ host: '127.0.0.1', port });

  const metadata = (await (await fetch(`${issuer}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
  t.ok((metadata.token_endpoint_auth_methods_supported as string[]).includes('private_key_jwt'), 'private_key_jwt is advertised');
  t.same(metadata.token_endpoint_auth_signing_alg_values_supported, ['EdDSA', 'Ed25519', 'ES256', 'PS256']);

  for (const [label, algorithm] of Object.entries(ALGORITHMS)) {
    const pair = (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
    const kid = `${label}-key`;
    const publicJwk = { ...(await webcrypto.subtle.exportKey('jwk', pair.publicKey)), kid };
    const created = await tg.gateway.adminApp.inject({
      method: 'POST',
      url: '/admin/v1/clients',
      headers: { authorization: `Bearer ${tg.adminToken}` },
      payload: { name: `${label} client`, scopes: ['sales'], token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [publicJwk] } },
    });
    t.equal(created.statusCode, 201, created.body);
    const clientId = created.json<{ client_id: string }>().client_id;

    const config = await oidc.discovery(new URL(issuer), clientId, undefined, oidc.PrivateKeyJwt({ key: pair.privateKey, kid }), {
      algorithm: 'oauth2',
      execute: [oidc.allowInsecureRequests],
    });
    const tokens = await oidc.clientCredentialsGrant(config, { scope: 'sales' });
    t.equal(tokens.token_type, 'bearer', `${label}: a token (openid-client lower-cases the type)`);
    t.equal(tokens.scope, 'sales');
    const proxied = await fetch(`${issuer}/v1/sales`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    t.equal(proxied.status, 200, `${label}: the token works on a public route`);
    t.equal((await oidc.clientCredentialsGrant(config, { scope: 'sales' })).token_type, 'bearer', `${label}: each request signs a new assertion (a new jti)`);

    // The same library with another key of the same kid: refused as any failed client authentication.
    const stranger = (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
    const wrong = await oidc.discovery(new URL(issuer), clientId, undefined, oidc.PrivateKeyJwt({ key: stranger.privateKey, kid }), {
      algorithm: 'oauth2',
      execute: [oidc.allowInsecureRequests],
    });
    const failure = await oidc.clientCredentialsGrant(wrong).then(
      () => undefined,
      (error: unknown) => error as { error?: string; error_description?: string },
    );
    t.equal(failure?.error, 'auth_error', `${label}: an unregistered key is refused`);
    t.equal(failure?.error_description, 'Client authentication failed: the client is invalid.');
  }
});
