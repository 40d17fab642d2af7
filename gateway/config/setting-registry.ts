// Every setting, declared once: its config key, its environment variable, the kind of value with its
// bounds, its default and what it does. The Settings type (settings.ts), the reader
// (setting-reader.ts), docs/settings.md and config/gateway.yaml (npm run docs) follow from this list,
// in this order. Rules across settings are in setting-rules.ts; the upstreams map in upstream-settings.ts;
// the credential store's and the tokens' settings in store-setting-declarations.ts and
// token-setting-declarations.ts, spread in their place below.
import { IPV6_PREFIX_RANGE } from '../net/throttle-key.js';
import { cidrList, dashboardUsers, hostNames, responseSigningKeyFile, secretKeyFile, workerCount } from './composite-kinds.js';
import { listOrNone, nullable, optional, setting, type ValuesOf } from './setting-declaration.js';
import { choice, existingFile, flag, integer, path, text, url } from './setting-kinds.js';
import { STORE_SETTINGS } from './store-setting-declarations.js';
import { TOKEN_SETTINGS } from './token-setting-declarations.js';

export { NONCE_FAILOVER_GUARDS, type NonceFailoverGuard } from './store-setting-declarations.js';
export {
  CLIENT_ASSERTION_ALGORITHMS,
  JWT_ALGORITHMS,
  OAUTH_ERROR_STYLES,
  OAUTH_PROFILES,
  type ClientAssertionAlgorithm,
  type JwtAlgorithm,
  type OAuthErrorStyle,
  type OAuthProfile,
} from './token-setting-declarations.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const LOG_FORMATS = ['pino', 'iso'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

const ADDRESS = text('an IP address or host name');
const HTTP_URL = url(['http:', 'https:']);

export const SETTINGS = {
  environment: setting({
    section: 'Environment and listeners',
    key: 'environment',
    env: 'GATEWAY_ENV',
    kind: choice(['development', 'production']),
    default: 'development',
    description: 'development or production; production requires Redis, an admin token and a URL for every upstream a policy names.',
  }),
  host: setting({ key: 'host', env: 'GATEWAY_HOST', kind: ADDRESS, default: '0.0.0.0', description: 'Address the public listener binds.' }),
  port: setting({ key: 'port', env: 'GATEWAY_PORT', kind: integer(0, 65535), default: 8080, description: 'Port of the public listener (token endpoint and proxied routes).' }),
  adminHost: setting({
    key: 'admin_host',
    env: 'GATEWAY_ADMIN_HOST',
    kind: ADDRESS,
    default: '127.0.0.1',
    description: 'Address the admin listener (admin API, dashboard, health, metrics) binds; keep it private.',
  }),
  adminPort: setting({ key: 'admin_port', env: 'GATEWAY_ADMIN_PORT', kind: integer(0, 65535), default: 8081, description: 'Port of the admin listener.' }),
  decisionPort: nullable({
    key: 'decision_port',
    env: 'GATEWAY_DECISION_PORT',
    kind: integer(0, 65535),
    shownDefault: 'off',
    example: 8082,
    description: 'Port of the decision listener, where nginx, Envoy and Traefik ask whether a request may pass (README, Decision API); needs trusted_proxies.',
  }),
  decisionHost: setting({
    key: 'decision_host',
    env: 'GATEWAY_DECISION_HOST',
    kind: ADDRESS,
    default: '127.0.0.1',
    description: 'Address the decision listener binds (the gRPC one too); only the edge proxies may reach it.',
  }),
  decisionGrpcPort: nullable({
    key: 'decision_grpc_port',
    env: 'GATEWAY_DECISION_GRPC_PORT',
    kind: integer(0, 65535),
    shownDefault: 'off',
    example: 8083,
    description:
      "Port of the gRPC decision listener on decision_host: Envoy's external authorization service (envoy.service.auth.v3.Authorization/Check) and gRPC health (grpc.health.v1.Health), plaintext HTTP/2 (README, Envoy over gRPC); needs trusted_proxies.",
  }),
  decisionGrpcDeadlineMs: setting({
    key: 'decision_grpc_deadline_ms',
    env: 'GATEWAY_DECISION_GRPC_DEADLINE_MS',
    kind: integer(10, 60_000),
    default: 2000,
    description:
      "Longest a gRPC decision may take, or the caller's own deadline when that comes sooner: past it the call is answered 503 decision_timeout, which Envoy passes on as a refusal.",
  }),
  logLevel: setting({ key: 'log_level', env: 'GATEWAY_LOG_LEVEL', kind: choice(LOG_LEVELS), default: 'info', description: 'Lowest level of the log lines written.' }),
  logFormat: setting({
    key: 'log_format',
    env: 'GATEWAY_LOG_FORMAT',
    kind: choice(LOG_FORMATS),
    default: 'pino',
    description: "pino: pino's JSON lines (time in epoch milliseconds, numeric levels); iso: the same with ISO 8601 time and level names.",
  }),

  ...STORE_SETTINGS,

  adminToken: optional({
    section: 'Admin access and shared keys',
    key: 'admin_token',
    env: 'GATEWAY_ADMIN_TOKEN',
    kind: text('at least 32 characters', (token) => (token.length >= 32 ? undefined : 'must be at least 32 characters (use: openssl rand -hex 32)')),
    shownDefault: 'unset (required in production)',
    description: 'Bearer token of the admin API and dashboard; unset in development: generated into data_dir/admin-token.',
  }),
  clientSecretHashKeyFile: optional({
    key: 'client_secret_hash_key_file',
    env: 'GATEWAY_CLIENT_SECRET_HASH_KEY_FILE',
    kind: secretKeyFile,
    description: 'Key client secrets are hashed with (openssl rand -hex 32); unset: generated and shared through the store.',
  }),
  jwtSigningKeyFile: optional({
    key: 'jwt_signing_key_file',
    env: 'GATEWAY_JWT_SIGNING_KEY_FILE',
    kind: existingFile,
    description: 'JWKS of private signing keys (first is active); unset: generated and shared through the store.',
  }),
  responseSigningKeyFile: optional({
    key: 'response_signing_key_file',
    env: 'GATEWAY_RESPONSE_SIGNING_KEY_FILE',
    kind: responseSigningKeyFile,
    shownDefault: 'unset (required in production when a route has message_signing)',
    description:
      'Ed25519 private key (PEM; openssl genpkey -algorithm ed25519) the responses of message_signing routes are signed with, published at /.well-known/http-message-signatures-directory; unset in development: generated at start, one per instance.',
  }),

  publicUpstream: optional({
    section: 'Upstreams (besides these, any number in the upstreams map below)',
    key: 'public_upstream',
    env: 'PUBLIC_UPSTREAM',
    kind: HTTP_URL,
    shownDefault: 'unset (an example echo server in development)',
    description: 'URL of upstream public, the same as upstreams.public or GATEWAY_UPSTREAM_PUBLIC; unset in development: an example echo server.',
  }),
  bankingUpstream: optional({
    key: 'banking_upstream',
    env: 'BANKING_UPSTREAM',
    kind: HTTP_URL,
    shownDefault: 'unset (an example echo server in development)',
    description: 'URL of upstream banking, the same as upstreams.banking or GATEWAY_UPSTREAM_BANKING; unset in development: an example echo server.',
  }),
  upstreamTimeoutMs: setting({
    key: 'upstream_timeout_ms',
    env: 'GATEWAY_UPSTREAM_TIMEOUT_MS',
    kind: integer(100, 600_000),
    default: 10_000,
    description:
      'Longest wait for an upstream answer, for each upstream that sets no timeout_ms of its own; slower is 504 upstream_timeout. The HTTP client (undici) checks the wait about every half second, so a timeout under about a second is approximate.',
  }),
  upstreamConnections: setting({
    key: 'upstream_connections',
    env: 'GATEWAY_UPSTREAM_CONNECTIONS',
    kind: integer(0, 100_000),
    default: 0,
    shownDefault: '0 (no limit)',
    description:
      'Most connections open to one upstream at once, for each upstream that sets no connections of its own; further requests wait for a free connection. 0: no limit.',
  }),

  ...TOKEN_SETTINGS,

  trustedProxies: listOrNone({
    section: 'Requests',
    key: 'trusted_proxies',
    env: 'GATEWAY_TRUSTED_PROXIES',
    kind: cidrList,
    example: ['10.0.0.0/8'],
    description: 'CIDRs whose X-Forwarded-For is believed.',
  }),
  policiesDir: setting({ key: 'policies_dir', env: 'GATEWAY_POLICIES_DIR', kind: path(), default: 'policies', description: 'Directory of the route policies (*.yaml).' }),
  policiesPollSeconds: setting({
    key: 'policies_poll_seconds',
    env: 'GATEWAY_POLICIES_POLL_SECONDS',
    kind: integer(0, 3600),
    default: 0,
    shownDefault: '0 (reload on SIGHUP or the admin API only)',
    description:
      'Look at the policy files every this many seconds and reload when they changed (a Kubernetes ConfigMap is updated by a symlink swap that no file event reports).',
  }),
  signatureWindowSeconds: setting({
    key: 'signature_window_seconds',
    env: 'GATEWAY_SIGNATURE_WINDOW_SECONDS',
    kind: integer(5, 3600),
    default: 300,
    description: "How far a signature's created may be from now.",
  }),
  maxBodyBytes: setting({
    key: 'max_body_bytes',
    env: 'GATEWAY_MAX_BODY_BYTES',
    kind: integer(1, 104_857_600),
    default: 1_048_576,
    description: 'Largest body of a signed request (the gateway buffers it to check its digest).',
  }),
  maxSignedResponseBytes: setting({
    key: 'max_signed_response_bytes',
    env: 'GATEWAY_MAX_SIGNED_RESPONSE_BYTES',
    kind: integer(1024, 104_857_600),
    default: 4_194_304,
    description:
      'Largest upstream response on a message_signing route: the gateway holds the whole body to put its Content-Digest in the signed headers; a larger one is answered 502 upstream_response_too_large. Held bytes count against body_buffer_budget_bytes too.',
  }),
  oauthMaxBodyBytes: setting({
    key: 'oauth_max_body_bytes',
    env: 'GATEWAY_OAUTH_MAX_BODY_BYTES',
    kind: integer(512, 1_048_576),
    default: 8192,
    description: 'Largest body of the token, revoke and introspect forms.',
  }),
  adminMaxBodyBytes: setting({
    key: 'admin_max_body_bytes',
    env: 'GATEWAY_ADMIN_MAX_BODY_BYTES',
    kind: integer(4096, 10_485_760),
    default: 65_536,
    description: 'Largest body of an admin API or dashboard request.',
  }),
  bodyBufferBudgetBytes: setting({
    key: 'body_buffer_budget_bytes',
    env: 'GATEWAY_BODY_BUFFER_BUDGET_BYTES',
    kind: integer(65_536, 4_294_967_296),
    default: 33_554_432,
    description: 'Body bytes held in memory across all requests at once (at least max_body_bytes); past it 503.',
  }),
  requestTimeoutMs: setting({
    key: 'request_timeout_ms',
    env: 'GATEWAY_REQUEST_TIMEOUT_MS',
    kind: integer(100, 600_000),
    default: 15_000,
    description: 'Time a client has to send a whole request (408, connection closed).',
  }),
  headersTimeoutMs: setting({
    key: 'headers_timeout_ms',
    env: 'GATEWAY_HEADERS_TIMEOUT_MS',
    kind: integer(100, 600_000),
    default: { from: (s: { requestTimeoutMs: number }) => Math.min(10_000, s.requestTimeoutMs), shown: '10000 (or request_timeout_ms, if lower)' },
    description: 'Time a client has to send the request headers (at most request_timeout_ms).',
  }),
  keepAliveTimeoutMs: setting({
    key: 'keep_alive_timeout_ms',
    env: 'GATEWAY_KEEP_ALIVE_TIMEOUT_MS',
    kind: integer(1000, 600_000),
    default: 72_000,
    description: 'Idle keep-alive connections are closed after this.',
  }),
  maxConnections: setting({
    key: 'max_connections',
    env: 'GATEWAY_MAX_CONNECTIONS',
    kind: integer(1, 1_000_000),
    default: 10_000,
    description: 'Open connections per listener; further ones are refused at once.',
  }),

  throttleMaxFailures: setting({
    section: 'Failed sign-ins (token endpoint and dashboard)',
    key: 'throttle_max_failures',
    env: 'GATEWAY_THROTTLE_MAX_FAILURES',
    kind: integer(1, 100_000),
    default: 10,
    description: 'Failed authentications per credential and address within the throttle window.',
  }),
  throttleMaxFailuresPerAddress: setting({
    key: 'throttle_max_failures_per_address',
    env: 'GATEWAY_THROTTLE_MAX_FAILURES_PER_ADDRESS',
    kind: integer(1, 1_000_000),
    default: { from: (s: { throttleMaxFailures: number }) => Math.max(s.throttleMaxFailures, 50), shown: '50 (or throttle_max_failures, if higher)' },
    description: 'Failed authentications per address (an IPv6 network, see throttle_ipv6_prefix), whatever credential (at least throttle_max_failures).',
  }),
  throttleMaxFailuresPerCredential: setting({
    key: 'throttle_max_failures_per_credential',
    env: 'GATEWAY_THROTTLE_MAX_FAILURES_PER_CREDENTIAL',
    kind: integer(1, 10_000_000),
    default: {
      from: (s: { throttleMaxFailures: number; throttleMaxFailuresPerAddress: number }) => Math.max(s.throttleMaxFailuresPerAddress, 2 * s.throttleMaxFailures, 1000),
      shown: '1000 (or the per-address limit or twice throttle_max_failures, if higher)',
    },
    description: 'Failed authentications per credential from all addresses (at least twice throttle_max_failures, so one network cannot reach it).',
  }),
  throttleIpv6Prefix: setting({
    key: 'throttle_ipv6_prefix',
    env: 'GATEWAY_THROTTLE_IPV6_PREFIX',
    kind: integer(IPV6_PREFIX_RANGE.min, IPV6_PREFIX_RANGE.max),
    // /64: the network one IPv6 host or LAN commonly holds (RFC 4291 interface identifiers).
    default: 64,
    description:
      'Leading bits of an IPv6 address that the failure throttle counts as one address (one network); IPv4 and IPv4-mapped addresses count alone; 128: each IPv6 address alone.',
  }),
  throttleWindowSeconds: setting({
    key: 'throttle_window_seconds',
    env: 'GATEWAY_THROTTLE_WINDOW_SECONDS',
    kind: integer(1, 86_400),
    default: 300,
    description: 'Window the failed-authentication limits count over.',
  }),

  adminHostnames: setting({
    section: 'Admin listener and dashboard',
    key: 'admin_hostnames',
    env: 'GATEWAY_ADMIN_HOSTNAMES',
    kind: hostNames,
    default: ['localhost'],
    description: 'Host names the admin listener answers to (IP literals always; DNS rebinding defence).',
  }),
  dashboardUsers: listOrNone({
    key: 'dashboard_users',
    env: 'GATEWAY_DASHBOARD_USERS',
    kind: dashboardUsers,
    description: 'Dashboard users who sign in with a password, besides the admin token.',
  }),
  sessionTtlSeconds: setting({
    key: 'session_ttl_seconds',
    env: 'GATEWAY_SESSION_TTL_SECONDS',
    kind: integer(60, 604_800),
    default: 28_800,
    description: 'Lifetime of a dashboard session from sign-in.',
  }),
  cookieSecure: setting({
    key: 'cookie_secure',
    env: 'GATEWAY_COOKIE_SECURE',
    kind: flag,
    default: { from: (s: { environment: string }) => s.environment === 'production', shown: 'true in production, false in development' },
    description:
      'Mark session cookies Secure: browsers send them over HTTPS (and to localhost) only. Set false only where the dashboard is reached over plain HTTP on a private network.',
  }),

  shutdownDrainSeconds: setting({
    section: 'Processes',
    key: 'shutdown_drain_seconds',
    env: 'GATEWAY_SHUTDOWN_DRAIN_SECONDS',
    kind: integer(0, 300),
    default: 5,
    description: 'On SIGTERM: seconds of serving with /readyz 503 and Connection: close before the listeners stop.',
  }),
  workers: setting({
    key: 'workers',
    env: 'GATEWAY_WORKERS',
    kind: workerCount,
    default: 1,
    description: 'Processes serving the same ports; more than 1 needs Redis.',
  }),
  pidFile: optional({
    key: 'pid_file',
    env: 'GATEWAY_PID_FILE',
    kind: path(),
    example: '.gateway/gateway.pid',
    description: 'Where the process to signal (HUP: reload, TERM: drain) writes its pid; unset: no file.',
  }),
};

/** Every setting's value, as the registry reads it (settings.ts adds the upstreams map). */
export type RegistryValues = ValuesOf<typeof SETTINGS>;
export type SettingName = keyof typeof SETTINGS;
