// The settings of tokens and the OAuth endpoints, declared as every setting is (setting-registry.ts,
// which lists them in this place): issuer and audience, lifetimes, the algorithms of tokens, client
// assertions and DPoP proofs, the FAPI 2.0 profile, DPoP nonces and the error style.
import { setting } from './setting-declaration.js';
import { choice, integer, list, refuse, text, url } from './setting-kinds.js';

export const JWT_ALGORITHMS = ['EdDSA', 'ES256', 'RS256'] as const;
export type JwtAlgorithm = (typeof JWT_ALGORITHMS)[number];
/** What a private_key_jwt client may sign its assertion with (RFC 7523); never none nor HMAC. */
export const CLIENT_ASSERTION_ALGORITHMS = ['EdDSA', 'ES256', 'PS256'] as const;
export type ClientAssertionAlgorithm = (typeof CLIENT_ASSERTION_ALGORITHMS)[number];
/** gateway: failed client authentication is auth_error, the gateway's own code since its first API; rfc6749: invalid_client. */
export const OAUTH_ERROR_STYLES = ['gateway', 'rfc6749'] as const;
export type OAuthErrorStyle = (typeof OAUTH_ERROR_STYLES)[number];
/** default: every method and Bearer tokens; fapi2: the FAPI 2.0 Security Profile's token endpoint (key-bound clients, DPoP-bound tokens). */
export const OAUTH_PROFILES = ['default', 'fapi2'] as const;
export type OAuthProfile = (typeof OAUTH_PROFILES)[number];

/** What a client signs with its own key (an assertion, a DPoP proof): never none nor HMAC. */
const CLIENT_KEY_ALGORITHMS = list(
  (alg) =>
    (CLIENT_ASSERTION_ALGORITHMS as readonly string[]).includes(alg)
      ? (alg as ClientAssertionAlgorithm)
      : refuse(`${JSON.stringify(alg)} is not one of ${CLIENT_ASSERTION_ALGORITHMS.join(', ')}`),
  `a list of ${CLIENT_ASSERTION_ALGORITHMS.join(', ')}`,
  { empty: 'must name at least one algorithm' },
);

export const TOKEN_SETTINGS = {
  issuer: setting({
    section: 'Tokens',
    key: 'issuer',
    env: 'GATEWAY_ISSUER',
    kind: url(['http:', 'https:'], { trimTrailingSlash: true }),
    default: { from: (s: { port: number }) => `http://localhost:${s.port}`, shown: 'http://localhost:<port>' },
    description: 'Token issuer (iss) and base of the OAuth metadata URLs.',
  }),
  audience: setting({
    key: 'audience',
    env: 'GATEWAY_AUDIENCE',
    kind: text(),
    default: { from: (s: { issuer: string }) => s.issuer, shown: 'the issuer' },
    description: 'Audience (aud) of issued tokens, and the one required of presented tokens.',
  }),
  oauthProfile: setting({
    key: 'oauth_profile',
    env: 'GATEWAY_OAUTH_PROFILE',
    kind: choice(OAUTH_PROFILES),
    default: 'default',
    description:
      'fapi2: the FAPI 2.0 Security Profile at the token endpoint: clients only private_key_jwt (no secret method is accepted), every token DPoP-bound (a proof with every token request), new clients created so, tokens of minutes by default.',
  }),
  tokenTtlSeconds: setting({
    key: 'token_ttl_seconds',
    env: 'GATEWAY_TOKEN_TTL_SECONDS',
    kind: integer(60, 604_800),
    default: { from: (s: { oauthProfile: OAuthProfile }) => (s.oauthProfile === 'fapi2' ? 600 : 86_400), shown: '86400; 600 with oauth_profile fapi2' },
    description: 'Lifetime of an issued access token.',
  }),
  jwtSigningAlgorithm: setting({
    key: 'jwt_signing_algorithm',
    env: 'GATEWAY_JWT_SIGNING_ALGORITHM',
    kind: choice(JWT_ALGORITHMS),
    default: 'EdDSA',
    description: 'Algorithm the gateway signs tokens with; must be among jwt_allowed_algorithms.',
  }),
  jwtAllowedAlgorithms: setting({
    key: 'jwt_allowed_algorithms',
    env: 'GATEWAY_JWT_ALLOWED_ALGORITHMS',
    kind: list(
      (alg) => ((JWT_ALGORITHMS as readonly string[]).includes(alg) ? (alg as JwtAlgorithm) : refuse(`${JSON.stringify(alg)} is not one of ${JWT_ALGORITHMS.join(', ')}`)),
      `a list of ${JWT_ALGORITHMS.join(', ')}`,
      { empty: 'must name at least one algorithm' },
    ),
    default: ['EdDSA'],
    description: 'Algorithms a Bearer token may be signed with (never taken from the token).',
  }),
  clientAssertionAlgorithms: setting({
    key: 'client_assertion_algorithms',
    env: 'GATEWAY_CLIENT_ASSERTION_ALGORITHMS',
    kind: CLIENT_KEY_ALGORITHMS,
    default: ['EdDSA', 'ES256', 'PS256'],
    description: 'Algorithms a private_key_jwt client assertion may be signed with (EdDSA also allows its label Ed25519); the key registered decides which one fits.',
  }),
  dpopAlgorithms: setting({
    key: 'dpop_algorithms',
    env: 'GATEWAY_DPOP_ALGORITHMS',
    kind: CLIENT_KEY_ALGORITHMS,
    default: ['EdDSA', 'ES256', 'PS256'],
    description: 'Algorithms a DPoP proof (RFC 9449) may be signed with (EdDSA also allows its label Ed25519); its jwk must fit the one used.',
  }),
  dpopProofMaxAgeSeconds: setting({
    key: 'dpop_proof_max_age_seconds',
    env: 'GATEWAY_DPOP_PROOF_MAX_AGE_SECONDS',
    kind: integer(5, 300),
    default: 60,
    description: "How old a DPoP proof may be by its iat; its jti is remembered that long (and a minute more) on every instance.",
  }),
  dpopNonceSeconds: setting({
    key: 'dpop_nonce_seconds',
    env: 'GATEWAY_DPOP_NONCE_SECONDS',
    kind: integer(0, 86_400),
    default: 0,
    shownDefault: '0 (no server nonces)',
    description:
      'Server-provided DPoP nonces (RFC 9449 sections 8, 9): every proof must carry a nonce from a DPoP-Nonce header (use_dpop_nonce otherwise), each valid for one to two of these periods, on every instance. 0: none (the proof\'s iat and single-use jti bound it).',
  }),
  oauthErrorStyle: setting({
    key: 'oauth_error_style',
    env: 'GATEWAY_OAUTH_ERROR_STYLE',
    kind: choice(OAUTH_ERROR_STYLES),
    default: 'gateway',
    description: 'Code of a failed client authentication: gateway answers 401 auth_error, rfc6749 401 invalid_client (RFC 6749 section 5.2).',
  }),
};
