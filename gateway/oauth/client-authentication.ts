// Client authentication for the token, revocation and introspection endpoints: client_secret_post
// (form fields) or client_secret_basic (RFC 6749 2.3.1), never both; throttled on failure.
import type { FastifyRequest } from 'fastify';
import type { OAuthErrorStyle } from '../config/settings.js';
import { GatewayError } from '../errors.js';
import type { Address } from '../net/cidr.js';
import type { ClientRecord, CredentialStore } from '../store/types.js';
import type { ClientSecretHasher } from './client-secrets.js';
import type { FailureThrottle } from '../http/failure-throttle.js';
import { isUuid } from '../uuid.js';

const MAX_CLIENT_ID_LENGTH = 128;

export type FormFields = Record<string, string>;

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
  method: 'client_secret_basic' | 'client_secret_post';
}

/** The form body as single-valued fields; a repeated parameter is invalid (RFC 6749 3.2). */
export function formFields(request: FastifyRequest): FormFields {
  const type = (request.headers['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    throw new GatewayError('invalid_request', 'The request body must be application/x-www-form-urlencoded.');
  }
  const body = (request.body ?? {}) as Record<string, string | string[]>;
  const fields: FormFields = {};
  for (const [name, value] of Object.entries(body)) {
    if (Array.isArray(value)) throw new GatewayError('invalid_request', `The parameter ${name} is repeated.`);
    fields[name] = value;
  }
  return fields;
}

function decodeBasicPart(part: string): string {
  // RFC 6749 2.3.1: id and secret are form-urlencoded before Base64.
  try {
    return decodeURIComponent(part.replace(/\+/g, ' '));
  } catch {
    throw new GatewayError('invalid_request', 'The Basic credentials are not properly encoded.');
  }
}

export function clientCredentialsOf(request: FastifyRequest, fields: FormFields): ClientCredentials {
  const credentials = readClientCredentials(request, fields);
  if (credentials.clientId.length > MAX_CLIENT_ID_LENGTH) throw new GatewayError('invalid_request', 'client_id is too long.');
  return credentials;
}

function readClientCredentials(request: FastifyRequest, fields: FormFields): ClientCredentials {
  const header = request.headers.authorization;
  const inForm = fields.client_id !== undefined || fields.client_secret !== undefined;
  if (header !== undefined) {
    const match = /^Basic +([A-Za-z0-9+/]+=*) *$/i.exec(header);
    if (!match) throw new GatewayError('invalid_request', 'The Authorization header must use the Basic scheme.');
    if (fields.client_secret !== undefined) throw new GatewayError('invalid_request', 'Use one client authentication method: Basic or form fields, not both.');
    const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon === -1) throw new GatewayError('invalid_request', 'The Basic credentials must be client_id:client_secret.');
    const clientId = decodeBasicPart(decoded.slice(0, colon));
    if (fields.client_id !== undefined && fields.client_id !== clientId)
      throw new GatewayError('invalid_request', 'client_id in the form differs from the Basic credentials.');
    return { clientId, clientSecret: decodeBasicPart(decoded.slice(colon + 1)), method: 'client_secret_basic' };
  }
  if (!inForm) throw new GatewayError('invalid_request', 'client_id and client_secret are required.');
  if (!fields.client_id) throw new GatewayError('invalid_request', 'client_id is required.');
  if (!fields.client_secret) throw new GatewayError('invalid_request', 'client_secret is required.');
  return { clientId: fields.client_id, clientSecret: fields.client_secret, method: 'client_secret_post' };
}

/**
 * The 401 for a client that failed to authenticate: auth_error (the gateway's own code, the default) or
 * invalid_client (RFC 6749 section 5.2). Either way a client that tried Basic is told the scheme.
 */
export function clientAuthenticationFailed(style: OAuthErrorStyle, method: ClientCredentials['method']): GatewayError {
  return new GatewayError(style === 'rfc6749' ? 'invalid_client' : 'auth_error', 'Client authentication failed: the client is invalid.', {
    headers: method === 'client_secret_basic' ? { 'www-authenticate': 'Basic realm="gateway"' } : {},
  });
}

export class ClientAuthenticator {
  constructor(
    private readonly store: CredentialStore,
    private readonly hasher: ClientSecretHasher,
    private readonly throttle: FailureThrottle,
    private readonly errorStyle: OAuthErrorStyle,
  ) {}

  /** The authenticated client, or auth_error / invalid_client (401), counted by the throttle as a failure. */
  async authenticate(credentials: ClientCredentials, address: Address | undefined): Promise<ClientRecord> {
    const client = await this.throttle.attempt({ address, credential: credentials.clientId }, async () => {
      // Client ids are UUIDs; anything else cannot exist, but still costs the same hash work below.
      const found = isUuid(credentials.clientId) ? await this.store.getClient(credentials.clientId) : null;
      // After a secret roll the replaced secret is accepted too, until its grace period ends.
      const previous =
        found?.previousSecretHash !== undefined && Date.parse(found.previousSecretExpiresAt ?? '') > Date.now() ? found.previousSecretHash : undefined;
      return this.hasher.matchesEither(credentials.clientSecret, found?.secretHash, previous) ? found : null;
    });
    if (client) return client;
    throw clientAuthenticationFailed(this.errorStyle, credentials.method);
  }
}
