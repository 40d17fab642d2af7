// Client authentication for the token, revocation and introspection endpoints: client_secret_post
// (form fields), client_secret_basic (RFC 6749 2.3.1) or private_key_jwt (RFC 7523 2.2), exactly
// one of them; throttled on failure.
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { ClientAssertionAlgorithm, OAuthErrorStyle, OAuthProfile } from '../config/settings.js';
import { GatewayError } from '../errors.js';
import type { Address } from '../net/cidr.js';
import type { ClientRecord, CredentialStore } from '../store/types.js';
import type { ClientSecretHasher } from './client-secrets.js';
import type { FailureThrottle } from '../http/failure-throttle.js';
import { isUuid } from '../uuid.js';
import { assertionSignedByClient } from './assertion-signature.js';
import { AssertionRefused, CLIENT_ASSERTION_TYPE, claimedClientId, headerAlgorithms, parseClientAssertion, type ParsedAssertion } from './client-assertion.js';
import { tokenEndpointUrl } from './discovery.js';

const MAX_CLIENT_ID_LENGTH = 128;

export type FormFields = Record<string, string>;

export interface SecretCredentials {
  clientId: string;
  clientSecret: string;
  method: 'client_secret_basic' | 'client_secret_post';
}

export interface AssertionCredentials {
  /** The form's client_id, optional with an assertion (its iss names the client). */
  clientId: string | undefined;
  assertion: string;
  method: 'private_key_jwt';
}

export type ClientCredentials = SecretCredentials | AssertionCredentials;

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
  if (credentials.clientId !== undefined && credentials.clientId.length > MAX_CLIENT_ID_LENGTH)
    throw new GatewayError('invalid_request', 'client_id is too long.');
  return credentials;
}

function readAssertionCredentials(request: FastifyRequest, fields: FormFields): AssertionCredentials {
  if (request.headers.authorization !== undefined || fields.client_secret !== undefined)
    throw new GatewayError('invalid_request', 'Use one client authentication method: a client assertion, Basic or a client_secret, not two.');
  if (fields.client_assertion_type !== CLIENT_ASSERTION_TYPE)
    throw new GatewayError('invalid_request', `client_assertion_type must be ${CLIENT_ASSERTION_TYPE}.`);
  if (!fields.client_assertion) throw new GatewayError('invalid_request', 'client_assertion is required.');
  return { clientId: fields.client_id, assertion: fields.client_assertion, method: 'private_key_jwt' };
}

function readClientCredentials(request: FastifyRequest, fields: FormFields): ClientCredentials {
  if (fields.client_assertion !== undefined || fields.client_assertion_type !== undefined) return readAssertionCredentials(request, fields);
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

/** What a client assertion is checked against: the accepted algorithms and audiences; and the profile, which may refuse secrets. */
export interface AssertionSettings {
  algorithms: readonly ClientAssertionAlgorithm[];
  /** The issuer identifier; the token endpoint URL is derived from it. */
  issuer: string;
  /** fapi2: no shared secret authenticates, and an assertion's aud is the issuer alone, as a string. */
  profile: OAuthProfile;
}

export class ClientAuthenticator {
  private readonly assertionAlgorithms: readonly string[];
  private readonly audiences: readonly string[];
  private readonly fapi2: boolean;

  constructor(
    private readonly store: CredentialStore,
    private readonly hasher: ClientSecretHasher,
    private readonly throttle: FailureThrottle,
    private readonly errorStyle: OAuthErrorStyle,
    assertions: AssertionSettings,
    private readonly nowMs: () => number = Date.now,
  ) {
    this.assertionAlgorithms = headerAlgorithms(assertions.algorithms);
    // FAPI 2.0 accepts the issuer identifier alone, as a string: no token endpoint URL an attacker's
    // server could share (the audience injection RFC 7523bis closes).
    this.audiences = assertions.profile === 'fapi2' ? [assertions.issuer] : [assertions.issuer, tokenEndpointUrl(assertions.issuer)];
    this.fapi2 = assertions.profile === 'fapi2';
  }

  /**
   * The authenticated client, or auth_error / invalid_client (401), counted by the throttle as a
   * failure. The client is told nothing more; `log` gets why an assertion was refused (an operator
   * setting up a private_key_jwt client needs it, and it names no secret).
   */
  async authenticate(credentials: ClientCredentials, address: Address | undefined, log?: Pick<FastifyBaseLogger, 'info'>): Promise<ClientRecord> {
    // Refused before the store is read, and not a guess to count: the method itself is not accepted.
    if (credentials.method !== 'private_key_jwt' && this.fapi2) {
      throw new GatewayError(
        this.errorStyle === 'rfc6749' ? 'invalid_client' : 'auth_error',
        'Client authentication failed: this server accepts only private_key_jwt (FAPI 2.0).',
      );
    }
    const client = credentials.method === 'private_key_jwt' ? await this.byAssertion(credentials, address, log) : await this.bySecret(credentials, address);
    if (client) return client;
    throw clientAuthenticationFailed(this.errorStyle, credentials.method);
  }

  private bySecret(credentials: SecretCredentials, address: Address | undefined): Promise<ClientRecord | null> {
    return this.throttle.attempt({ address, credential: credentials.clientId }, async () => {
      // Client ids are UUIDs; anything else cannot exist, but still costs the same hash work below.
      const found = isUuid(credentials.clientId) ? await this.store.getClient(credentials.clientId) : null;
      // After a secret roll the replaced secret is accepted too, until its grace period ends.
      const previous =
        found?.previousSecretHash !== undefined && Date.parse(found.previousSecretExpiresAt ?? '') > this.nowMs() ? found.previousSecretHash : undefined;
      // A private_key_jwt client has no secret: none matches, and its method is checked besides.
      const matches = this.hasher.matchesEither(credentials.clientSecret, found?.secretHash ?? undefined, previous);
      return matches && found?.tokenEndpointAuthMethod !== 'private_key_jwt' ? found : null;
    });
  }

  /**
   * Parsed and checked without the store first (a refusal there is still a counted failure); then
   * the client read, the signature verified with its keys, and only then the jti consumed, the one
   * write, so that no assertion failing a check ever marks a jti used.
   */
  private byAssertion(
    credentials: AssertionCredentials,
    address: Address | undefined,
    log: Pick<FastifyBaseLogger, 'info'> | undefined,
  ): Promise<ClientRecord | null> {
    let parsed: ParsedAssertion | undefined;
    let reason = '';
    try {
      parsed = parseClientAssertion(credentials.assertion, {
        algorithms: this.assertionAlgorithms,
        audiences: this.audiences,
        audienceAsString: this.fapi2,
        nowSeconds: this.nowMs() / 1000,
      });
    } catch (error) {
      if (!(error instanceof AssertionRefused)) throw error;
      reason = error.message;
    }
    const claimed = parsed?.claims.clientId ?? credentials.clientId ?? claimedClientId(credentials.assertion);
    const refused = (why: string): null => {
      log?.info({ client_id: claimed !== undefined && isUuid(claimed) ? claimed : null, reason: why }, 'client assertion refused');
      return null;
    };
    return this.throttle.attempt({ address, credential: claimed }, async () => {
      if (parsed === undefined) return refused(reason);
      const { clientId, jti, exp } = parsed.claims;
      if (credentials.clientId !== undefined && credentials.clientId !== clientId) return refused("client_id is not the assertion's iss and sub");
      const found = await this.store.getClient(clientId);
      if (found?.tokenEndpointAuthMethod !== 'private_key_jwt') return refused('no private_key_jwt client has this id');
      if (!assertionSignedByClient(parsed, found.jwks)) return refused("the signature does not verify with the client's registered keys");
      return (await this.store.consumeTokenId(clientId, 'client_assertion', jti, exp)) ? found : refused('the assertion was used before (its jti)');
    });
  }
}
