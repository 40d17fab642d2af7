// Interoperability: a standard OAuth client library (openid-client) gets a token through RFC 8414
// discovery and the client credentials grant from a listening gateway, and an independent JWT
// library (fast-jwt) verifies it against /.well-known/jwks.json.
import t from 'tap';
import * as oidc from 'openid-client';
import { createVerifier } from 'fast-jwt';
import { startTestGateway } from '../helpers/gateway.js';
import { freePort } from '../helpers/gateway-process.js';
import { jwkToPem } from '../helpers/jwt.js';
import { createClient } from '../helpers/oauth.js';

t.test('openid-client discovery + client credentials; fast-jwt verifies the token', async (t) => {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const tg = await startTestGateway(t, { config: { issuer } });
  await tg.gateway.publicApp.listen({ host: '127.0.0.1', port });
  const client = await createClient(tg, ['sales', 'stats']);

  for (const [label, auth] of [
    ['client_secret_basic', oidc.ClientSecretBasic(client.client_secret)],
    ['client_secret_post', oidc.ClientSecretPost(client.client_secret)],
  ] as const) {
    const config = await oidc.discovery(new URL(issuer), client.client_id, undefined, auth, { algorithm: 'oauth2', execute: [oidc.allowInsecureRequests] });
    t.equal(config.serverMetadata().token_endpoint, `${issuer}/v1/oauth/token`, `${label}: discovered`);
    const tokens = await oidc.clientCredentialsGrant(config, { scope: 'sales' });
    t.equal(tokens.token_type, 'bearer', `${label}: token type (openid-client lower-cases it)`);
    t.equal(tokens.scope, 'sales');
    t.equal(tokens.expires_in, 86400);

    const jwks = (await (await fetch(`${issuer}/.well-known/jwks.json`)).json()) as { keys: Array<Record<string, unknown>> };
    const verify = createVerifier({ key: jwkToPem(jwks.keys[0]!), algorithms: ['EdDSA'], allowedIss: issuer, allowedAud: issuer, complete: true });
    const { header, payload } = verify(tokens.access_token) as { header: Record<string, unknown>; payload: Record<string, unknown> };
    t.equal(header.typ, 'at+jwt');
    t.equal(header.kid, jwks.keys[0]!.kid);
    t.equal(payload.client_id, client.client_id);
    t.equal(payload.scope, 'sales');

    const proxied = await fetch(`${issuer}/v1/sales`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    t.equal(proxied.status, 200, `${label}: the token works on a public route`);
  }

  const wrong = await oidc.discovery(new URL(issuer), client.client_id, undefined, oidc.ClientSecretPost('wrong'), {
    algorithm: 'oauth2',
    execute: [oidc.allowInsecureRequests],
  });
  const failure = await oidc.clientCredentialsGrant(wrong).then(
    () => undefined,
    (error: unknown) => error as { error?: string; error_description?: string },
  );
  t.equal(failure?.error, 'auth_error', 'the library surfaces the error code');
  t.equal(failure?.error_description, 'Client authentication failed: the client is invalid.', 'and error_description');

  const forgedKeyVerifier = createVerifier({
    key: jwkToPem(((await (await fetch(`${issuer}/.well-known/jwks.json`)).json()) as { keys: Array<Record<string, unknown>> }).keys[0]!),
    algorithms: ['EdDSA'],
    allowedIss: 'http://other.example',
  });
  const config = await oidc.discovery(new URL(issuer), client.client_id, undefined, oidc.ClientSecretPost(client.client_secret), {
    algorithm: 'oauth2',
    execute: [oidc.allowInsecureRequests],
  });
  const token = (await oidc.clientCredentialsGrant(config)).access_token;
  t.throws(() => forgedKeyVerifier(token), 'fast-jwt checks iss: the verification is not vacuous');
});
