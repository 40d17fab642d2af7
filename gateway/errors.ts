// The one catalog of errors the gateway answers with. Codes are stable: clients and dashboards
// branch on them, so a code is never renamed, only added.

/**
 * One catalog entry. Every field is required, so a new code cannot be added without them:
 * docs/errors.md is generated from this table (npm run docs).
 */
export interface ErrorEntry {
  /** The HTTP status the code is answered with. */
  readonly status: number;
  /** What went wrong, sent as the response's message (and the meaning in docs/errors.md). */
  readonly message: string;
  /** What the client should do about it, for docs/errors.md: one or two short sentences. */
  readonly action: string;
  /** A second status the code is answered with where a standard says so (RFC 9449: 400 at the token endpoint). */
  readonly tokenEndpointStatus?: number;
}

/** auth_error and its RFC 6749 name invalid_client: one failure, two spellings. */
const CLIENT_AUTHENTICATION_FAILED: ErrorEntry = {
  status: 401,
  message: 'Client authentication failed: the client is invalid.',
  action: 'Check the client id and secret (the secret is shown once, at creation); after repeated failures the gateway throttles.',
};

export const ERRORS = {
  // Input and routing
  bad_request: {
    status: 400,
    message: 'The request is malformed.',
    action: 'Fix the request (method, headers, body encoding) before sending it again; retrying it unchanged fails the same way.',
  },
  ambiguous_path: {
    status: 400,
    message: 'The request path contains a form the gateway does not forward (dot segments, encoded slashes, backslashes or similar).',
    action: 'Send the path in its plain, normalized form: no dot segments, encoded slashes or backslashes.',
  },
  route_not_found: {
    status: 404,
    message: 'No route matches this request.',
    action: 'Check the method and path against the routes the gateway serves (policies/*.yaml); do not retry.',
  },
  body_too_large: {
    status: 413,
    message: 'The request body is larger than the gateway accepts.',
    action: 'Send a smaller body; the limit is a gateway setting (max_body_bytes, oauth_max_body_bytes, admin_max_body_bytes).',
  },
  request_timeout: {
    status: 408,
    message: 'The request was not received in time.',
    action: 'Send the whole request faster (the connection was closed); retry on a new connection.',
  },
  headers_too_large: {
    status: 431,
    message: 'The request headers are larger than the gateway accepts.',
    action: 'Send fewer or shorter headers (cookies are a common cause).',
  },
  forwarded_for_invalid: {
    status: 400,
    message: 'X-Forwarded-For from a trusted proxy holds an entry that is not a plain IP address; the client address cannot be determined.',
    action: 'Fix the proxy in front of the gateway so that X-Forwarded-For holds only IP addresses.',
  },

  // Bearer tokens (public API)
  invalid_token: {
    status: 401,
    message: 'The access token is missing, malformed, expired or revoked.',
    action: 'Get a new access token at POST /v1/oauth/token and send it as Authorization: Bearer; retry once with the new token.',
  },
  invalid_dpop_proof: {
    status: 401,
    tokenEndpointStatus: 400,
    message: 'The DPoP proof is missing or not valid for this request.',
    action:
      'Send one DPoP header with a fresh proof (RFC 9449) signed by the key the token is bound to, for this method and URL, with ath of the token; at the token endpoint, without ath.',
  },
  insufficient_scope: {
    status: 403,
    message: 'The access token does not carry the scope this route requires.',
    action: 'Ask an operator to allow the client the required scope, then request a token with that scope; do not retry with the same token.',
  },

  // Signed requests (banking API)
  use_dpop_nonce: {
    status: 401,
    tokenEndpointStatus: 400,
    message: 'The DPoP proof must carry the nonce the gateway provides (DPoP-Nonce).',
    action: 'Make the proof again with the nonce of the DPoP-Nonce response header (openid-client does this by itself) and resend.',
  },
  signature_missing: {
    status: 401,
    message: 'The request is not signed: x-access-id, Signature-Input and Signature are required.',
    action: 'Sign the request (x-access-id, Signature-Input and Signature) as SIGNING.md describes.',
  },
  signature_invalid: {
    status: 401,
    message: 'The request signature does not verify; signature_base in the body is the base the gateway computed.',
    action:
      'Compare the signature_base in the body with the base your client signed (gatewayctl explain helps), and check the key matches the service account.',
  },
  signature_malformed: {
    status: 401,
    message: 'Signature-Input or Signature is not a valid structured field, or not shaped as RFC 9421 requires.',
    action: 'Send Signature-Input and Signature as RFC 9421 structured fields, as SIGNING.md shows.',
  },
  signature_keyid_mismatch: {
    status: 401,
    message: 'No signature has a keyid equal to the x-access-id header.',
    action: "Set the signature's keyid parameter to the same Access ID as the x-access-id header.",
  },
  signature_ambiguous: {
    status: 401,
    message: 'More than one signature has a keyid equal to the x-access-id header.',
    action: 'Send exactly one signature whose keyid is the Access ID.',
  },
  signature_parameters_invalid: {
    status: 401,
    message: 'The signature needs created and a nonce of 1 to 128 characters, and an expires that is not before created.',
    action: 'Include created, a nonce of 1 to 128 characters and, if any, an expires not before created.',
  },
  signature_component_unavailable: {
    status: 401,
    message: 'The signature covers a component the request does not carry.',
    action: 'Cover only components the request carries (e.g. add the header, or drop it from the covered list).',
  },
  signature_component_unsupported: {
    status: 401,
    message: 'The signature covers a component, or a component parameter, the gateway does not implement.',
    action: 'Cover only the components and parameters SIGNING.md lists.',
  },
  signature_expired: {
    status: 401,
    message: 'The request signature is outside its validity window.',
    action: 'Sign each request just before sending it, and keep the client clock in sync (NTP); then retry with a fresh signature.',
  },
  nonce_replayed: {
    status: 401,
    message: 'The signature nonce has already been used.',
    action: 'Use a new random nonce for every request, retries included; re-sign and send again.',
  },
  digest_mismatch: {
    status: 401,
    message: 'Content-Digest is missing or does not match the request body.',
    action: 'Compute Content-Digest over the exact body bytes sent, cover it in the signature, and re-sign.',
  },
  unknown_access_id: {
    status: 401,
    message: 'The Access ID does not belong to an active service account.',
    action: 'Check the Access ID; if the service account was deleted, ask an operator for a new one. Do not retry.',
  },
  credential_expired: {
    status: 401,
    message: "The service account's credential has expired (its expires_at has passed).",
    action: 'Ask an operator for a new service account (credentials do not renew); do not retry.',
  },
  access_id_conflict: { status: 401, message: 'The request carries more than one x-access-id header.', action: 'Send exactly one x-access-id header.' },
  signature_components_missing: {
    status: 401,
    message: 'The signature does not cover every component the gateway requires.',
    action: 'Cover every component the gateway requires (see Accept-Signature in the response and SIGNING.md) and re-sign.',
  },
  signature_algorithm_unsupported: { status: 401, message: 'The signature algorithm must be ed25519.', action: 'Sign with an Ed25519 key and alg="ed25519".' },
  signature_not_yet_valid: {
    status: 401,
    message: 'The signature was created in the future.',
    action: 'Sync the client clock (NTP) and do not set created in the future; re-sign and retry.',
  },
  ip_not_allowed: {
    status: 403,
    message: "The client address is not in the service account's allow-list.",
    action: "Call from an address in the service account's allow-list, or ask an operator to add yours.",
  },
  permission_denied: {
    status: 403,
    message: 'The service account lacks the permission this route requires.',
    action: 'Ask an operator to grant the service account the permission this route requires; do not retry.',
  },

  // Rate limits of policy routes (per credential; distinct from the sign-in throttle's too_many_requests)
  rate_limited: {
    status: 429,
    message: 'This credential has sent more requests to this route than its rate limit allows; retry after Retry-After seconds.',
    action: 'Wait the Retry-After seconds before the next request to this route, and slow down.',
  },

  // Token endpoint (RFC 6749 section 5.2 codes plus the gateway's own auth_error)
  auth_error: CLIENT_AUTHENTICATION_FAILED,
  // auth_error under its RFC 6749 name, answered instead with oauth_error_style: rfc6749.
  invalid_client: CLIENT_AUTHENTICATION_FAILED,
  invalid_request: {
    status: 400,
    message: 'The token request is malformed.',
    action: 'Send the token request as an application/x-www-form-urlencoded form with grant_type and client credentials, each once.',
  },
  unsupported_grant_type: { status: 400, message: 'Only the client_credentials grant is supported.', action: 'Use grant_type=client_credentials.' },
  invalid_scope: {
    status: 400,
    message: 'The requested scope is not allowed for this client.',
    action: 'Request only scopes the client is allowed, or ask an operator to allow the scope.',
  },
  too_many_requests: {
    status: 429,
    message: 'Too many failed attempts; retry later.',
    action: 'Stop retrying; wait the Retry-After seconds, then fix the credential before trying again.',
  },
  introspection_not_allowed: {
    status: 403,
    message: 'Only clients marked as resource servers may introspect tokens.',
    action: 'Introspect with a client created as a resource server (gatewayctl clients create --resource-server).',
  },

  // Admin API
  host_not_allowed: {
    status: 421,
    message: 'This listener does not answer to that Host.',
    action: 'Reach the admin listener by IP address or a name listed in admin_hostnames.',
  },
  admin_unauthorized: {
    status: 401,
    message: 'A valid admin token or dashboard session is required.',
    action: 'Send the admin token as Authorization: Bearer, or sign in to the dashboard again.',
  },
  csrf_failed: {
    status: 403,
    message: 'The CSRF token is missing or wrong.',
    action: 'Reload the dashboard page and submit again (the form carries a fresh CSRF token).',
  },
  validation_error: {
    status: 400,
    message: 'The request body is not valid.',
    action: 'Fix the field named in the response (field) as its message says, then send again.',
  },
  not_found: { status: 404, message: 'No such resource.', action: 'Check the id; the resource may have been deleted. Do not retry.' },
  service_account_key_limit: {
    status: 409,
    message: 'The service account already holds two public keys, the most it may hold.',
    action: 'Remove the key being rotated out (DELETE .../keys/{fingerprint}) before adding another.',
  },
  service_account_key_exists: {
    status: 409,
    message: 'The service account already holds this public key.',
    action: 'Nothing to do: the key already verifies signatures of this account.',
  },
  service_account_last_key: {
    status: 409,
    message: "This is the service account's only public key; it cannot be removed.",
    action: 'Add the new key first, then remove the old one; or delete the service account.',
  },
  client_method_mismatch: {
    status: 409,
    message: "This does not fit the client's token_endpoint_auth_method.",
    action: 'Secrets are rolled only for client_secret_ clients, keys changed only for private_key_jwt clients; create a new client to change the method.',
  },
  client_key_limit: {
    status: 409,
    message: 'The client already holds two public keys, the most it may hold.',
    action: 'Remove the key being rotated out (DELETE .../keys/{kid}) before adding another.',
  },
  client_key_exists: {
    status: 409,
    message: 'The client already holds this public key, or a key with this kid.',
    action: 'Nothing to do if it is the same key; otherwise give the new key another kid.',
  },
  client_last_key: {
    status: 409,
    message: "This is the client's only public key; it cannot be removed.",
    action: 'Add the new key first, then remove the old one; or delete the client.',
  },
  signing_key_active: {
    status: 409,
    message: 'This is the active JWT signing key; it cannot be retired.',
    action: 'Rotate first (gatewayctl keys rotate), then retire the key that was rotated out.',
  },

  // Decision listener (edge proxies asking for a decision)
  body_not_checkable: {
    status: 403,
    message:
      'The request carries a signed body the edge proxy does not send to the decision, and the route does not delegate the digest check to its upstream.',
    action:
      'Operators: send the body to the decision (Envoy with_request_body, Traefik forwardBody) or set digest: upstream on the route and check Content-Digest in the upstream.',
  },
  decision_caller_not_trusted: {
    status: 403,
    message: 'Only a trusted proxy (GATEWAY_TRUSTED_PROXIES) may ask the decision listener.',
    action: "Operators: add the edge proxy's address to GATEWAY_TRUSTED_PROXIES, or call from it.",
  },
  decision_request_invalid: {
    status: 400,
    message: 'The decision request does not describe the original request as its convention requires.',
    action: 'Operators: configure the edge proxy as the README section for it shows (the original method, URI and host headers).',
  },
  length_required: {
    status: 411,
    message:
      'A request body must come with a Content-Length: the edge proxy in front of the gateway cannot tell a body without one from none before it asks for a decision.',
    action: 'Send the body with a Content-Length (not chunked, not HTTP/2 DATA frames without one).',
  },
  decision_timeout: {
    status: 503,
    message:
      "The decision took longer than its deadline (GATEWAY_DECISION_GRPC_DEADLINE_MS, or the edge proxy's own): the request is refused; a signed request's nonce may have been used.",
    action: "Sign the request again and retry after Retry-After; operators: check the credential store's latency and the gRPC timeout Envoy sets.",
  },
  body_partial: {
    status: 413,
    message: 'The edge proxy sent only part of the body, whose digest cannot be checked.',
    action: "Operators: set the edge proxy's body buffer (Envoy max_request_bytes) to at least GATEWAY_MAX_BODY_BYTES, without allow_partial_message.",
  },

  // Dependencies
  server_busy: { status: 503, message: 'The gateway is busy; retry shortly.', action: 'Retry after the Retry-After seconds, with backoff.' },
  change_not_confirmed: {
    status: 503,
    message: 'The change was not confirmed on a Redis replica in time: it may or may not have been applied. Repeating the same request is safe.',
    action:
      'Repeat the request: an admin change ends in the same state however often it is applied (deleting or revoking twice is deleting or revoking once). If it lasts, operators should check that every Redis master has GATEWAY_REDIS_ACK_REPLICAS replicas connected and in sync.',
  },
  signature_predates_failover: {
    status: 503,
    message:
      'The credential store moved to a new Redis master that may not know every nonce used before the move: a signature created before it is refused for now; the request was not forwarded.',
    action:
      'Sign the request again (with a new nonce, as always) and send it after the Retry-After seconds; signatures created after the move plus the allowed clock skew pass.',
  },
  store_unavailable: {
    status: 503,
    message: 'The credential store cannot be reached; the request was not forwarded.',
    action: 'Retry with backoff; if it lasts, operators should check Redis (the request was not forwarded).',
  },
  upstream_unavailable: {
    status: 502,
    message: 'The upstream could not be reached.',
    action: 'Retry with backoff only if the request is idempotent; operators should check the upstream.',
  },
  upstream_response_too_large: {
    status: 502,
    message: 'The upstream answered a route whose responses the gateway signs with a body larger than it holds to sign (GATEWAY_MAX_SIGNED_RESPONSE_BYTES).',
    action: 'Operators: page the upstream API so each response fits, or raise GATEWAY_MAX_SIGNED_RESPONSE_BYTES; the request may have been acted on.',
  },
  upstream_timeout: {
    status: 504,
    message: 'The upstream did not answer in time.',
    action: 'Retry with backoff only if the request is idempotent (the upstream may have acted on it).',
  },
  internal_error: {
    status: 500,
    message: 'Internal gateway error.',
    action: 'Retry once; if it persists, report it to the operators with the time of the request.',
  },
} as const satisfies Record<string, ErrorEntry>;

export type ErrorCode = keyof typeof ERRORS;

export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** Extra response headers, e.g. WWW-Authenticate, Accept-Signature, Retry-After. */
  readonly headers: Record<string, string>;
  /** The field a validation error concerns, for forms that show errors next to it. */
  readonly field: string | undefined;
  /** More body members that help the client fix its request, e.g. signature_base. Sent as they are: never a secret. */
  readonly details: Readonly<Record<string, string>>;

  constructor(
    code: ErrorCode,
    message?: string,
    options: { headers?: Record<string, string>; field?: string; details?: Record<string, string>; cause?: unknown; atTokenEndpoint?: boolean } = {},
  ) {
    super(message ?? ERRORS[code].message, { cause: options.cause });
    this.name = 'GatewayError';
    this.code = code;
    const entry: ErrorEntry = ERRORS[code];
    this.status = (options.atTokenEndpoint ? entry.tokenEndpointStatus : undefined) ?? entry.status;
    this.headers = options.headers ?? {};
    this.field = options.field;
    this.details = options.details ?? {};
  }
}

export function isGatewayError(error: unknown): error is GatewayError {
  return error instanceof GatewayError;
}

/** A validation failure that names the field and what is wrong with it. */
export function invalidField(field: string, problem: string): GatewayError {
  return new GatewayError('validation_error', `${field}: ${problem}`, { field });
}
