// The token endpoint reference: oidc-provider issuing JWT access tokens (RFC 9068) for the client
// credentials grant, configured like the gateway: one client (client_secret_post), one resource
// server (audience), Ed25519 signing, in-memory adapter. Run as its own process:
//   node dist/bench/oidc-provider-server.js PORT CLIENT_ID CLIENT_SECRET
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import Provider from 'oidc-provider';

const [port = '0', clientId = 'bench', clientSecret = 'bench-secret'] = process.argv.slice(2);
const issuer = `http://127.0.0.1:${port}`;
const resource = 'urn:bench:api';
const signingKey = { ...generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }), kid: 'bench', use: 'sig', alg: 'EdDSA' };

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: clientId,
      client_secret: clientSecret,
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_post',
      scope: 'sales',
    },
  ],
  scopes: ['sales'],
  jwks: { keys: [signingKey] },
  // The only key is Ed25519: the default RS256 would need an RSA key.
  clientDefaults: { id_token_signed_response_alg: 'EdDSA' },
  ttl: { ClientCredentials: 86_400 },
  cookies: { keys: [randomBytes(32).toString('hex')] },
  features: {
    clientCredentials: { enabled: true },
    devInteractions: { enabled: false },
    // A resource indicator is what makes an access token a JWT: without one the token is opaque.
    // Every request gets the one resource server by default, so it need not send `resource`.
    resourceIndicators: {
      enabled: true,
      defaultResource: () => resource,
      useGrantedResource: () => true,
      getResourceServerInfo: () => ({ scope: 'sales', audience: resource, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'EdDSA' } } }),
    },
  },
});
provider.listen(Number(port), '127.0.0.1', () => console.log('ready'));
