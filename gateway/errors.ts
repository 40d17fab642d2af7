// The one catalog of errors the gateway answers with. Codes are stable: clients and dashboards
// branch on them, so a code is never renamed, only added.

export const ERRORS = {
  // Input and routing
  bad_request: { status: 400, message: 'The request is malformed.' },
  ambiguous_path: { status: 400, message: 'The request path contains a form the gateway does not forward (dot segments, encoded slashes, backslashes or similar).' },
  route_not_found: { status: 404, message: 'No route matches this request.' },
  body_too_large: { status: 413, message: 'The request body is larger than the gateway accepts.' },
  request_timeout: { status: 408, message: 'The request was not received in time.' },
  headers_too_large: { status: 431, message: 'The request headers are larger than the gateway accepts.' },
  forwarded_for_invalid: { status: 400, message: 'X-Forwarded-For from a trusted proxy holds an entry that is not a plain IP address; the client address cannot be determined.' },

  // Bearer tokens (public API)
  invalid_token: { status: 401, message: 'The access token is missing, malformed, expired or revoked.' },
  insufficient_scope: { status: 403, message: 'The access token does not carry the scope this route requires.' },

  // Signed requests (banking API)
  signature_missing: { status: 401, message: 'The request is not signed: x-access-id, Signature-Input and Signature are required.' },
  signature_invalid: { status: 401, message: 'The request signature does not verify; signature_base in the body is the base the gateway computed.' },
  signature_malformed: { status: 401, message: 'Signature-Input or Signature is not a valid structured field, or not shaped as RFC 9421 requires.' },
  signature_keyid_mismatch: { status: 401, message: 'No signature has a keyid equal to the x-access-id header.' },
  signature_ambiguous: { status: 401, message: 'More than one signature has a keyid equal to the x-access-id header.' },
  signature_parameters_invalid: { status: 401, message: 'The signature needs created and a nonce of 1 to 128 characters, and an expires that is not before created.' },
  signature_component_unavailable: { status: 401, message: 'The signature covers a component the request does not carry.' },
  signature_component_unsupported: { status: 401, message: 'The signature covers a component, or a component parameter, the gateway does not implement.' },
  signature_expired: { status: 401, message: 'The request signature is outside its validity window.' },
  nonce_replayed: { status: 401, message: 'The signature nonce has already been used.' },
  digest_mismatch: { status: 401, message: 'Content-Digest is missing or does not match the request body.' },
  unknown_access_id: { status: 401, message: 'The Access ID does not belong to an active service account.' },
  access_id_conflict: { status: 401, message: 'The request carries more than one x-access-id header.' },
  signature_components_missing: { status: 401, message: 'The signature does not cover every component the gateway requires.' },
  signature_algorithm_unsupported: { status: 401, message: 'The signature algorithm must be ed25519.' },
  signature_not_yet_valid: { status: 401, message: 'The signature was created in the future.' },
  ip_not_allowed: { status: 403, message: 'The client address is not in the service account\'s allow-list.' },
  permission_denied: { status: 403, message: 'The service account lacks the permission this route requires.' },

  // Rate limits of policy routes (per credential; distinct from the sign-in throttle's too_many_requests)
  rate_limited: { status: 429, message: 'This credential has sent more requests to this route than its rate limit allows; retry after Retry-After seconds.' },

  // Token endpoint (RFC 6749 section 5.2 codes plus the seed's auth_error)
  auth_error: { status: 401, message: 'Client authentication failed: the client is invalid.' },
  // auth_error under its RFC 6749 name, answered instead with oauth_error_style: rfc6749.
  invalid_client: { status: 401, message: 'Client authentication failed: the client is invalid.' },
  invalid_request: { status: 400, message: 'The token request is malformed.' },
  unsupported_grant_type: { status: 400, message: 'Only the client_credentials grant is supported.' },
  invalid_scope: { status: 400, message: 'The requested scope is not allowed for this client.' },
  too_many_requests: { status: 429, message: 'Too many failed attempts; retry later.' },
  introspection_not_allowed: { status: 403, message: 'Only clients marked as resource servers may introspect tokens.' },

  // Admin API
  host_not_allowed: { status: 421, message: 'This listener does not answer to that Host.' },
  admin_unauthorized: { status: 401, message: 'A valid admin token or dashboard session is required.' },
  csrf_failed: { status: 403, message: 'The CSRF token is missing or wrong.' },
  validation_error: { status: 400, message: 'The request body is not valid.' },
  not_found: { status: 404, message: 'No such resource.' },

  // Dependencies
  server_busy: { status: 503, message: 'The gateway is busy; retry shortly.' },
  store_unavailable: { status: 503, message: 'The credential store cannot be reached; the request was not forwarded.' },
  upstream_unavailable: { status: 502, message: 'The upstream could not be reached.' },
  upstream_timeout: { status: 504, message: 'The upstream did not answer in time.' },
  internal_error: { status: 500, message: 'Internal gateway error.' },
} as const satisfies Record<string, { status: number; message: string }>;

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

  constructor(code: ErrorCode, message?: string, options: { headers?: Record<string, string>; field?: string; details?: Record<string, string>; cause?: unknown } = {}) {
    super(message ?? ERRORS[code].message, { cause: options.cause });
    this.name = 'GatewayError';
    this.code = code;
    this.status = ERRORS[code].status;
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
