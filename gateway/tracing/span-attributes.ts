// The attribute names the gateway's spans carry: OpenTelemetry's HTTP semantic conventions, and the
// gateway's own decision under gateway.*. No attribute ever holds a credential: no token, secret,
// signature, key or full Access ID (README, Tracing).
export const ATTR = {
  httpMethod: 'http.request.method',
  httpRoute: 'http.route',
  httpStatus: 'http.response.status_code',
  urlPath: 'url.path',
  urlScheme: 'url.scheme',
  serverAddress: 'server.address',
  serverPort: 'server.port',
  errorType: 'error.type',
  /** bearer, dpop or signature. */
  authMethod: 'gateway.auth.method',
  /** allow or deny. */
  authDecision: 'gateway.auth.decision',
  /** The error code of a refusal (gateway/errors.ts). */
  authReason: 'gateway.auth.reason',
  /** The policy route's id. */
  route: 'gateway.route',
  clientId: 'gateway.client_id',
  serviceAccountId: 'gateway.service_account_id',
  /** The upstream's name (its URL is in server.address and server.port). */
  upstream: 'gateway.upstream',
  /** Which listener answered: public or decision. */
  listener: 'gateway.listener',
} as const;
